# Loaded by the Python that runs moto_server (internal/moto puts this
# file's directory first on PYTHONPATH). It fixes one performance bug of
# moto 5.x and changes nothing else.
#
# moto's DynamoDBBackend.transact_write_items keeps a copy of each table a
# transaction touches, to roll back to if the transaction is cancelled. It
# takes that copy once per *action* of the transaction, not once per table:
# a transaction of 100 actions deep-copies the whole table 100 times, each
# copy replacing the last. A 100-action transaction on a table of 5,000
# items then takes about 6 s instead of 60 ms. Here the table is copied
# once per transaction; the rollback state is the same (every copy was
# taken before any action ran).
#
# Anything unexpected (another moto, no moto) leaves moto as it is.
import os
import sys


def _patch_moto():
    import copy
    import functools
    import threading

    from moto.dynamodb import models
    from moto.dynamodb.models.table import Table

    original = models.DynamoDBBackend.transact_write_items
    if getattr(original, "_copies_each_table_once", False):
        return

    class _CopyOnce:
        # Stands in for the copy module inside moto.dynamodb.models while
        # one transaction is being prepared: a Table is copied once, and
        # anything else (or another thread) goes to copy itself.
        def __init__(self, thread):
            self._thread = thread
            self._tables = {}

        def deepcopy(self, x, memo=None):
            if memo is None and isinstance(x, Table) and threading.get_ident() == self._thread:
                if id(x) not in self._tables:
                    self._tables[id(x)] = (x, copy.deepcopy(x))
                return self._tables[id(x)][1]
            return copy.deepcopy(x, memo)

        def __getattr__(self, name):
            return getattr(copy, name)

    lock = threading.Lock()

    @functools.wraps(original)
    def transact_write_items(self, *args, **kwargs):
        with lock:
            saved = models.copy
            models.copy = _CopyOnce(threading.get_ident())
            try:
                return original(self, *args, **kwargs)
            finally:
                models.copy = saved

    transact_write_items._copies_each_table_once = True
    models.DynamoDBBackend.transact_write_items = transact_write_items


try:
    _patch_moto()
except Exception as e:  # noqa: BLE001 - never stop moto from starting
    print("surveyservice sitecustomize: moto left unpatched: %r" % (e,), file=sys.stderr)


# Run the sitecustomize this one shadows, if the installation has one.
_here = os.path.dirname(os.path.abspath(__file__))
for _dir in sys.path:
    _file = os.path.join(_dir or ".", "sitecustomize.py")
    if os.path.abspath(_dir or ".") != _here and os.path.isfile(_file):
        with open(_file) as _f:
            exec(compile(_f.read(), _file, "exec"), {"__name__": "sitecustomize", "__file__": _file})
        break
