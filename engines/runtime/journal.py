"""The undo journal snapshots stand on: what a run changes after a snapshot, saved before the change.

Every part of the runtime that changes an object of a run (a token, a flow, a frame, an object's
values, the context's containers) first calls `touch` on it (`touch_part` for a container the object
does not save with itself). While a snapshot is open, the first touch of an object in each epoch
(the time since the newest snapshot or restore) saves its fields and the containers it owns; rolling
back puts the saves back, newest first: the objects stay the same objects (what refers to them needs
no fixing), their saved fields become theirs again. So a restore costs what changed since the
snapshot, not the size of the run.
"""

from __future__ import annotations

from typing import Any

# The containers an object saves with itself (copied, and put back with its fields): the ones nearly
# every change to it changes. Others are saved in place, by `touch_part`, since objects share them.
_OWNED: dict[str, tuple[str, ...]] = {
    "Flow": ("tokens",),
    "Frame": ("values",),
    "Instance": ("values",),
}
_owned_by_type: dict[type, tuple[str, ...]] = {}

# Epochs are numbered across all journals, so an object can carry the number of the epoch it was
# born in (its `born` field): one born in the current epoch of its run needs no save, since a
# restore leaves nothing that can reach it.
_epochs = [0]


def current_epoch() -> int:
    return _epochs[0]


def _next_epoch() -> int:
    _epochs[0] += 1
    return _epochs[0]


class Journal:
    """The saves since the oldest open snapshot, and where in them each open snapshot stands."""

    __slots__ = ("entries", "epoch", "open_marks", "seen", "serial")

    def __init__(self) -> None:
        # (object, its fields as they were, True) or (container, its contents as they were, False)
        self.entries: list[tuple[Any, Any, bool]] = []
        self.seen: set[int] = set()  # what this epoch saved already (saved objects live on in entries)
        self.open_marks: dict[int, int] = {}  # an open snapshot's serial -> its position in `entries`
        self.serial = 0
        self.epoch = 0

    def touch(self, target: object) -> None:
        """About to change `target` (an object of the run, or a bare dict, list or set): save it first."""
        if not self.open_marks:
            return
        key = id(target)
        seen = self.seen
        if key in seen:
            return
        seen.add(key)
        kind = type(target)
        if kind is dict or kind is list or kind is set:
            self.entries.append((target, target.copy(), False))  # type: ignore[attr-defined]
            return
        fields = target.__dict__
        if fields["born"] >= self.epoch:
            return
        saved = fields.copy()
        owned = _owned_by_type.get(kind)
        if owned is None:
            owned = _owned_by_type[kind] = _OWNED.get(kind.__name__, ())
        for name in owned:
            saved[name] = fields[name].copy()
        # restored whole: the saved fields become the object's, with their copies of its containers
        self.entries.append((target, saved, True))

    def touch_part(self, owner: Any, container: object) -> None:
        """About to change one of the containers `owner` does not save with itself."""
        if self.open_marks and owner.born < self.epoch:
            self.touch(container)

    def open(self) -> int:
        """A new snapshot here; its serial. An epoch begins: every object is saved again on its first touch."""
        self.serial += 1
        self.open_marks[self.serial] = len(self.entries)
        self.seen.clear()
        self.epoch = _next_epoch()
        return self.serial

    def roll_back(self, serial: int) -> None:
        """Undo every change made since the snapshot `serial` was opened, newest first; it stays open,
        and the snapshots opened after it, which stood on the changes undone, are closed."""
        mark = self.open_marks[serial]
        entries = self.entries
        for index in range(len(entries) - 1, mark - 1, -1):
            target, saved, whole = entries[index]
            if whole:
                target.__dict__ = saved
            elif type(target) is list:
                target[:] = saved
            else:
                target.clear()
                target.update(saved)
        del entries[mark:]
        self.seen.clear()
        self.epoch = _next_epoch()
        for later in [k for k in self.open_marks if k > serial]:
            del self.open_marks[later]

    def close(self, serial: int) -> None:
        """A snapshot released: with none left open, nothing more is saved and the saves are dropped."""
        self.open_marks.pop(serial, None)
        if not self.open_marks:
            self.entries.clear()
            self.seen.clear()

    def is_open(self, serial: int) -> bool:
        return serial in self.open_marks
