"""medicai 0.0.4: `stage_wise_conv` (SwinBackboneBase, SwinUNETR) and ResNetBase's `se_*`,
round-tripped through `get_config` -> `from_config` on Keras 3 (KERAS_BACKEND=tensorflow).

    python benchmarks/check_corpus_evidence/medicai.py
"""

import sys

SRC = "/work/cache/check-corpus/src"  # benchmarks/check_corpus.py's cache
sys.path.insert(0, f"{SRC}/medicai-0.0.4")

from medicai.blocks import unetr  # noqa: E402
from medicai.models import SwinBackbone, SwinUNETR  # noqa: E402
from medicai.models.resnet.resnet import ResNet18  # noqa: E402


def round_trip(cls, **kwargs):
    try:
        model = cls(**kwargs)
    except ValueError as error:
        return f"cannot be built: {error}"
    config = model.get_config()
    back = cls.from_config(config)
    return f"{model.count_params():,} params, from its config {back.count_params():,}"


SWIN = {"input_shape": (32, 32, 32, 1)}
for flag in (False, True):
    print(f"SwinUNETR stage_wise_conv={flag}:", end=" ")
    print(
        round_trip(SwinUNETR, encoder_name="swin_tiny", num_classes=1, stage_wise_conv=flag, **SWIN)
    )
    print(
        f"SwinBackbone stage_wise_conv={flag}:",
        round_trip(SwinBackbone, stage_wise_conv=flag, **SWIN),
    )

# The clash that stops stage_wise_conv=True: every UNETRBasicBlock defaults to one name.
built_with = unetr.UNETRBasicBlock.__init__


def unnamed(self, *args, name=None, **kwargs):
    built_with(self, *args, name=name, **kwargs)  # None: Keras names each one apart


unetr.UNETRBasicBlock.__init__ = unnamed
print("names made unique:")
print(
    "  SwinBackbone stage_wise_conv=True:", round_trip(SwinBackbone, stage_wise_conv=True, **SWIN)
)
print("  SwinUNETR stage_wise_conv=True:", end=" ")
print(round_trip(SwinUNETR, encoder_name="swin_tiny", num_classes=1, stage_wise_conv=True, **SWIN))
unetr.UNETRBasicBlock.__init__ = built_with

print(
    "ResNet18 se_block=True:",
    round_trip(ResNet18, input_shape=(32, 32, 3), num_classes=2, se_block=True),
)
