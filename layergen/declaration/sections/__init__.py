"""The declaration sections that live in one module each: the registry every stage reads
(the analyzer builds each section's piece, the test context takes its facts, the test
builders and templates are named by it). A new section is a module here and its partial."""

from __future__ import annotations

from . import no_jit, noise
from .section import Scope, Section

SECTIONS: dict[str, Section] = {section.key: section for section in (noise.SECTION, no_jit.SECTION)}

__all__ = ["SECTIONS", "Scope", "Section"]
