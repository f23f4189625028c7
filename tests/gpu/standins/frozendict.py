"""Stand-in for the frozendict package: a dict that cannot change and can be
hashed (equal contents, equal hash), as a cache key. See README.md."""


class frozendict(dict):
    __slots__ = ("_hash",)

    def __hash__(self):
        try:
            return self._hash
        except AttributeError:
            self._hash = hash(frozenset(self.items()))
            return self._hash

    def _readonly(self, *a, **k):
        raise TypeError("frozendict is immutable")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly
    __ior__ = _readonly

    def __repr__(self):
        return f"frozendict({dict.__repr__(self)})"

    def copy(self):
        return self

    def __reduce__(self):
        return (frozendict, (dict(self),))
