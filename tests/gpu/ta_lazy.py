"""Lazy package __init__ for tests/gpu/corpus_edits.py (issue 14).

Some projects' package __init__.py files import the whole framework (every
model, a web server, optional accelerators) although a kernel module and its
unit test need none of it; on the GPU machine those imports fail (modules
that cannot be installed there), so the project's own test of the kernel
never ran. For the top-level packages named in TA_LAZY_PKGS (a comma list),
this finder creates each package module with its real __path__ and file but
runs its __init__.py only when something reads a name the package itself
defines (module __getattr__, PEP 562): `import pkg.sub.mod` and
`from pkg.sub import mod` load the real files and nothing else. The kernel
module and the test run unchanged; nothing they compute with is replaced.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys


class _LazyInit(importlib.abc.Loader):
    def __init__(self, real):
        self.real = real  # the spec PathFinder found

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module):
        spec = self.real
        module.__file__ = spec.origin
        module.__path__ = list(spec.submodule_search_locations)
        name = spec.name
        state = {"ran": False}

        def run_init():
            if state["ran"] or not spec.origin or not os.path.isfile(spec.origin):
                return False
            state["ran"] = True
            del module.__getattr__  # the real module's attributes from now on
            with open(spec.origin, "rb") as f:
                code = compile(f.read(), spec.origin, "exec")
            exec(code, module.__dict__)
            return True

        def getattr_(attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            # A submodule first: that needs no __init__ code.
            for d in module.__path__:
                if os.path.isfile(os.path.join(d, attr + ".py")) or os.path.isdir(os.path.join(d, attr)):
                    return importlib.import_module(name + "." + attr)
            if run_init() and attr in module.__dict__:
                return module.__dict__[attr]
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")

        module.__getattr__ = getattr_


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, tops):
        self.tops = tops

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] not in self.tops:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.submodule_search_locations is None or not spec.origin \
                or not spec.origin.endswith("__init__.py"):
            return spec  # modules, and namespace packages, load as usual
        lazy = importlib.util.spec_from_loader(fullname, _LazyInit(spec), origin=spec.origin, is_package=True)
        lazy.submodule_search_locations = list(spec.submodule_search_locations)
        lazy.has_location = True
        return lazy


def install():
    tops = set(filter(None, os.environ.get("TA_LAZY_PKGS", "").split(",")))
    if tops and not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder(tops))


install()
