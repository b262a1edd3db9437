"""Outputs that know their inputs: each output of the site records what it read while it was made, and the next
build makes it again only when one of those reads would now give something else.

An output is planned with a key (the digest of what the plan hands its maker: a page's path, template, title and
eager context, a rendering's chart spec, an asset's bytes) and made inside a `Recorder`. Reads of the project's
inputs go through `read()`, which notes a name and the digest of what was read:

- `("site",)`: every input but the articles and templates (site.toml, data/, claims, catalogs, project charts,
  this package's code, the libraries' versions, the environment). Coarse on purpose: a data row can reach any
  page through a figure, a table or a finding.
- `("template", NAME)`: a template the output was rendered with, or included, extended or imported.
- `("article", SOURCE, FIELD)`: one field of one article (`content.Article` records its own attribute reads), so a
  list page depends on its articles' titles and dates, not on their bodies.
- `("collection", NAME)`: the membership and order of a collection the output iterated (`Collection`), so a
  list page is made again when an article is added or removed.
- `("collection field", NAME, FIELD)`: one field of every item of a collection, for a value computed from all of
  them once and used by many outputs (`remembered`: the articles citing each benchmark).

Nothing is declared by hand: a new template variable, page type or field read is recorded when it is read. The
last build's records live in the build cache (`uptodate.record`); `Freshness.fresh` checks an output's recorded
reads against this build's inputs without making it, which is the whole cost of a kept page.
"""

from __future__ import annotations

import contextvars
import dataclasses
import hashlib
import io
import pickle
from collections.abc import Callable, Iterator, Sequence

_active: contextvars.ContextVar[Recorder | None] = contextvars.ContextVar("recorder", default=None)


def digest(value) -> str:
    """A digest of a value as pickle writes it, except that an object with an `__identity__` (an article, a chart,
    a language) counts as that identity: its contents are the site's inputs, or are recorded as they are read.
    Equal values give equal digests from one build to the next (a set, whose order changes, at worst makes an
    output again); a value pickle cannot write (a function) is an error, never a digest that is always new."""
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, protocol=5)
    # No memo ("fast" mode): pickle writes an object met twice as a reference to the first, so equal values gave
    # other bytes when they shared a string in one build (made fresh) and not in the next (read from the cache),
    # and pages were made again for nothing. The values digested hold no cycles.
    pickler.fast = True
    pickler.dump(value)
    return hashlib.blake2b(buffer.getbuffer(), digest_size=16).hexdigest()


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        identity = getattr(type(obj), "__identity__", None)
        return None if identity is None else identity(obj)


class Recorder:
    """The reads of one output while it is made: name -> digest of what was read."""

    def __init__(self) -> None:
        self.reads: dict[tuple, str] = {}

    def __enter__(self) -> Recorder:
        self._token = _active.set(self)
        return self

    def __exit__(self, *exc) -> None:
        _active.reset(self._token)


def recording() -> bool:
    return _active.get() is not None


def read(name: tuple, value_digest: str | Callable[[], str]) -> None:
    """Note a read by the output being made (none is: nothing to note). `value_digest` may be a function, called
    only when an output is being made and only for its first read of `name`."""
    recorder = _active.get()
    if recorder is not None and name not in recorder.reads:
        recorder.reads[name] = value_digest() if callable(value_digest) else value_digest


def remembered(memo: dict, name: tuple, compute: Callable[[], object], whole: Collection | None = None):
    """compute() once per `memo` and `name` (a value many outputs derive alike from the same inputs); every output
    that uses the value notes the reads it was computed from, as if it had computed it itself.

    `whole`: a collection the computation goes through (every article): its reads of a field of the collection's
    items count as one read of that field across the collection, so that each output using the value notes a few
    reads, not thousands (an edit of that field in any item makes them again, as an edit of a read item would)."""
    found = memo.get(name)
    if found is None:
        with Recorder() as recorder:
            value = compute()
        reads: dict[tuple, str] = {}
        for read_name, value_digest in recorder.reads.items():
            if whole is not None and whole.holds(read_name):
                field = read_name[2]
                reads.setdefault(("collection field", whole.name, field), whole.field_digest(field))
            else:
                reads[read_name] = value_digest
        found = memo[name] = (value, reads)
    value, reads = found
    outer = _active.get()
    if outer is not None:
        for read_name, value_digest in reads.items():
            outer.reads.setdefault(read_name, value_digest)
    return value


class Collection(Sequence):
    """A read-only sequence whose iteration by an output is a recorded read of its membership and order.

    `item_reads`: the kind of read its items note of their own fields (("article", SOURCE, FIELD)), when they do
    and have a `field_digest(FIELD)`; see `remembered`."""

    def __init__(self, name: str, items: Sequence, identity: Callable[[object], object],
                 item_reads: str | None = None) -> None:
        self.name, self._items, self.item_reads = name, list(items), item_reads
        # Taken now, while no output is being made: an item's identity may be one of its recorded fields.
        self._identities = [identity(item) for item in self._items]
        self._held = set(self._identities)
        self._digest: str | None = None
        self._field_digests: dict[str, str] = {}

    def membership(self) -> str:
        if self._digest is None:
            self._digest = digest(self._identities)
        return self._digest

    def holds(self, name: tuple) -> bool:
        """Whether a read is of a field of one of the items."""
        return self.item_reads is not None and name[0] == self.item_reads and len(name) == 3 and name[1] in self._held

    def field_digest(self, field: str) -> str:
        """One field of every item, in order: ("collection field", NAME, FIELD)."""
        if field not in self._field_digests:
            self._field_digests[field] = digest([self.membership(), *(item.field_digest(field) for item in self._items)])
        return self._field_digests[field]

    def _read(self) -> None:
        read(("collection", self.name), self.membership)

    def __iter__(self) -> Iterator:
        self._read()
        return iter(self._items)

    def __len__(self) -> int:
        self._read()
        return len(self._items)

    def __getitem__(self, index):
        self._read()
        return self._items[index]


@dataclasses.dataclass
class Answers:
    """This build's answers to the reads recorded by the last one.

    `site`: the digest of the site-wide inputs; `template_source(name)`: a template's bytes (None when there is
    none); `articles`: source -> article; `collections`: name -> Collection."""

    site: str
    template_source: Callable[[str], bytes | None]
    articles: dict
    collections: dict[str, Collection]
    _answers: dict = dataclasses.field(default_factory=dict)

    def answer(self, name: tuple) -> str | None:
        if name not in self._answers:
            self._answers[name] = self._read(name)
        return self._answers[name]

    def _read(self, name: tuple) -> str | None:
        kind = name[0]
        if kind == "site":
            return self.site
        if kind == "template":
            source = self.template_source(name[1])
            return None if source is None else hashlib.sha256(source).hexdigest()
        if kind == "article":
            article = self.articles.get(name[1])
            return None if article is None else article.field_digest(name[2])
        if kind == "collection":
            collection = self.collections.get(name[1])
            return None if collection is None else collection.membership()
        if kind == "collection field":
            collection = self.collections.get(name[1])
            return None if collection is None or not collection.item_reads else collection.field_digest(name[2])
        return None  # a read this version does not know: the output is made again

    def fresh(self, reads) -> bool:
        """Whether every recorded read ((name, digest) pairs) would read the same now."""
        return all(self.answer(name) == value for name, value in reads)


class Outputs:
    """The site being made: each output's file, the key it was planned with and what it read while it was made.

    `previous`: path -> (key, reads, file state) of the last build's outputs still as it left them, each read an
    index into `reads` ((name, digest) pairs, each kept once however many outputs made it). An output whose key
    is unchanged and whose reads `answers` finds unchanged is kept (its file carried over, unread); `records`,
    path -> (key, [(name, digest), ...]), is what the next build gets."""

    def __init__(self, files, previous: dict[str, tuple[str, tuple[int, ...], tuple]] | None = None,
                 reads: list[tuple[tuple, str]] | None = None, digests: dict[str, str] | None = None) -> None:
        self.files = files
        self.previous = previous or {}
        self.reads = reads or []
        self.previous_digests = digests or {}  # path -> digest of its bytes, for the last build's outputs
        self.digests: dict[str, str] = {}  # those this build took, for the next one
        self.answers: Answers | None = None  # set once the articles and templates are known
        self.records: dict[str, tuple[str, list]] = {}
        self._still: list[bool] | None = None  # per read: whether it reads the same now
        # Each distinct (name, digest) read held once: thousands of pages read the same articles' fields, and each
        # page's reads come from a worker as objects of their own.
        self._interned: dict[tuple, tuple] = {}

    def _unchanged(self) -> list[bool] | None:
        if self._still is None and self.answers is not None:
            self._still = [self.answers.answer(name) == value for name, value in self.reads]
        return self._still

    def current(self, path: str, key: str) -> bool:
        """True, and the previous file kept, when the last build made `path` from the same plan and what it read
        then reads the same now."""
        found = self.previous.get(path)
        if found is None or found[0] != key:
            return False
        if found[1] and ((still := self._unchanged()) is None or not all(map(still.__getitem__, found[1]))):
            return False
        self.files.keep(path, found[2])
        self.records[path] = (key, [self.reads[index] for index in found[1]])
        return True

    def add(self, path: str, key: str, content, reads: dict[tuple, str]) -> None:
        self.files.add(path, content)
        self.records[path] = (key, [self._interned.setdefault(pair, pair) for pair in reads.items()])

    def content_digest(self, path: str, site) -> str:
        """A digest of the bytes of the output at `path` (for a tool that reads outputs: the search index): for a
        file kept from the last build (its size, mtime and inode unchanged), the digest that build took, so that
        it is not read; else its bytes, read once. `site`: the folder of the last build's site."""
        found = self.digests.get(path)
        if found is None:
            found = self.previous_digests.get(path) if self.files.kept(path) else None
            if found is None:
                found = hashlib.blake2b(self.files.read(path, site), digest_size=16).hexdigest()
            self.digests[path] = found
        return found

    def put(self, path: str, content: bytes | str) -> None:
        """An output made from nothing but its own bytes (an asset, a chart's spec)."""
        key = digest(content)
        if not self.current(path, key):
            self.add(path, key, content, {})

    def make(self, path: str, key: str, make: Callable[[], bytes | str], site: str) -> None:
        """`make()` the output at `path` unless it is current, recording what it reads (and the site's inputs)."""
        if self.current(path, key):
            return
        with Recorder() as recorder:
            read(("site",), site)
            content = make()
        self.add(path, key, content, recorder.reads)


def packed(records: dict[str, tuple[str, list]]) -> tuple[dict[str, tuple[str, tuple[int, ...]]], list]:
    """`Outputs.records` for keeping: each distinct (name, digest) read stored once, outputs naming its index."""
    index: dict[tuple, int] = {}
    table: list[tuple[tuple, str]] = []
    by_path = {}
    for path, (key, reads) in records.items():
        numbers = []
        for pair in reads:
            if pair not in index:
                index[pair] = len(table)
                table.append(pair)
            numbers.append(index[pair])
        by_path[path] = (key, tuple(numbers))
    return by_path, table
