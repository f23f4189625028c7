"""Stand-in for the easydict package: a dict whose keys read and write as
attributes, nested dicts (also in lists) converted alike. See README.md."""


class EasyDict(dict):
    def __init__(self, d=None, **kw):
        super().__init__()
        d = dict(d or {}, **kw)
        for k, v in d.items():
            setattr(self, k, v)

    def _wrap(self, v):
        if isinstance(v, dict) and not isinstance(v, EasyDict):
            return type(self)(v)
        if isinstance(v, (list, tuple)):
            return type(v)(self._wrap(x) for x in v)
        return v

    def __setattr__(self, name, value):
        value = self._wrap(value)
        super().__setattr__(name, value)
        super().__setitem__(name, value)

    __setitem__ = __setattr__

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)

    def __delattr__(self, name):
        super().__delitem__(name)
        try:
            super().__delattr__(name)
        except AttributeError:
            pass

    def update(self, e=None, **f):
        d = dict(e or {}, **f)
        for k, v in d.items():
            setattr(self, k, v)

    def pop(self, k, *args):
        if k in self.__dict__:
            super().__delattr__(k)
        return super().pop(k, *args)
