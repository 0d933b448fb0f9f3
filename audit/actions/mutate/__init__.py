"""The mutation catalogue: plausible agy format changes, each applied to a private copy of a home.

A ``Mutation`` names a change agy could make in a release (a renamed key, a dropped column, a
moved root, a new enum value, another file layout ...), says what it imitates and which fact of
the format references it rests on, and the paths a reader that reads them would depend on
(``reads``, in the notation of consumer profiles). ``apply(home)`` changes the copy of a home in
place and returns how many things it changed (records, rows, files, directories): 0 means the store
holds nothing the mutation can change, so a reader run on the copy proves nothing about it.

The copy is ours (``store_copy.copy_stores``): files are rewritten through ``safewrite.atomic_write``
keeping their modification time, ``.db`` files are changed in memory (a deserialized image) and
written back whole, and every directory keeps its time. Changed lines, rows and blobs are the
only bytes that differ: an unchanged transcript line keeps its bytes, and a protobuf blob is
edited on the wire, field by field, so that fields a mutation does not touch keep their bytes
(real stores hold explicit default values a parse and re-serialisation would drop:
docs/store-format.md#explicit-defaults).

``CATALOGUE`` lists the mutations in the order reports show them; docs/consumers.md ("Conformance for any
reader") shows the same table (a test holds them equal).

The modules: how a mutation changes a copy, keeping every byte it does not change (``edits``),
the mutations (``catalogue``) and the mutated copies a run writes (``copies``).
"""

from audit.actions.mutate.catalogue import CATALOGUE, MUTATIONS, Mutation, describe
from audit.actions.mutate.copies import INDEX, ORIGINAL, apply_mutation, write_copies
from audit.actions.mutate.edits import each_blob, edit_wire

__all__ = [
    "CATALOGUE",
    "INDEX",
    "MUTATIONS",
    "ORIGINAL",
    "Mutation",
    "apply_mutation",
    "describe",
    "each_blob",
    "edit_wire",
    "write_copies",
]
