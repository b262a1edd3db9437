"""The one YAML loader of the inputs (front matter, claims.yaml): safe, bounded, every error at its mark.

Aliases are kept (claims.yaml shares a `source:` between claims), but what they expand to is counted, so a
"billion laughs" is an error instead of minutes spent on a billion values; nesting is limited, so a deeply
nested text is an error instead of a RecursionError; and a value YAML's syntax allows that Python cannot
make (2026-02-30, an integer of 5,000 digits, a list as a key) is an error at its mark. Every problem is a
`yaml.MarkedYAMLError`, which the callers already turn into `file:line: error: ...`.
"""

from __future__ import annotations

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError

MAX_DEPTH = 64  # levels of nested lists and mappings; the inputs use four or five
MAX_VALUES = 100_000  # values once every alias is expanded; claims.yaml has a few thousand


class _Bounded:
    """Mixed into a yaml Loader (pure Python or libyaml's); see `loader_class`."""

    _depth = 0

    def compose_node(self, parent, index):  # the pure-Python composer recurses: stop it early
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep",
                                    self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_timestamp(self, node):
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError) as exc:  # 2026-02-30 matches YAML's pattern but is no date
            raise ConstructorError(None, None, f"{node.value!r} is not a valid date: {exc}",
                                   node.start_mark) from None

    def construct_yaml_int(self, node):
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # int() refuses more than 4,300 digits
            raise ConstructorError(None, None, f"an integer of {len(node.value)} characters is too long",
                                   node.start_mark) from None


def loader_class(base: type, *mixins: type) -> type:
    """A Loader class on `base` (yaml.SafeLoader or yaml.CSafeLoader) with the bounds above."""
    cls = type(f"Bounded{base.__name__}", (*mixins, _Bounded, base), {})
    cls.add_constructor("tag:yaml.org,2002:timestamp", _Bounded.construct_yaml_timestamp)
    cls.add_constructor("tag:yaml.org,2002:int", _Bounded.construct_yaml_int)
    return cls


def hashable_key(key, key_node) -> None:
    """A mapping key Python can hash, or an error at the key (`[a, b]: 1` parses, but a list is no key)."""
    try:
        hash(key)
    except TypeError:
        kind = "mapping" if isinstance(key, dict) else "list" if isinstance(key, list) else type(key).__name__
        raise ConstructorError(None, None, f"a {kind} cannot be a mapping key",
                               key_node.start_mark) from None


def single_node(loader) -> yaml.Node | None:
    """The document's node tree, checked for depth and alias expansion before anything is constructed."""
    node = loader.get_single_node()
    if node is not None:
        _check_size(node)
    return node


def _check_size(root: yaml.Node) -> None:
    """Visit the nodes as the constructed value holds them, an alias as often as it is used, without recursion
    (libyaml composes 1,000 levels): more than MAX_VALUES visits is an alias bomb, reported at the top-level
    entry that holds it; an alias inside the value it names (`&a [*a]`) nests endlessly. The walk stops at the
    first limit it passes: bounded time."""
    visits = 0
    stack = [(root, 1, root)]  # node, depth, the top-level entry it is in
    while stack:
        node, depth, top = stack.pop()
        visits += 1
        if visits > MAX_VALUES:
            raise ComposerError(None, None, f"the aliases in this value expand to more than {MAX_VALUES:,} values",
                                top.start_mark)
        if depth > MAX_DEPTH:
            raise ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep", node.start_mark)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                entry = top if depth > 1 else key  # an alias value's mark is its anchor's: name the key
                stack.append((key, depth + 1, entry))
                stack.append((value, depth + 1, entry))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1, top if depth > 1 else child) for child in node.value)
