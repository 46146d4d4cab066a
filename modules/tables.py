"""Tables kept as their columns until they are read as DataFrames.

Importing pandas costs more than simulating a small trace, and ``cpn run``
only writes its tables to CSV files and counts their rows.  So a workload
or a run's result keeps each table as :class:`Columns` and builds the
``pandas.DataFrame`` its attribute promises when that attribute is first
read (:class:`FrameField`); :func:`stored` gives the table as kept, which
:func:`columns_of`, :func:`row_count` and ``modules.run_files.write_csv``
read without pandas.

>>> from dataclasses import dataclass
>>> @dataclass
... class Result:
...     jobs: object = FrameField()
>>> result = Result(Columns({"job_id": [1, 2]}))
>>> row_count(stored(result, "jobs")), "pandas" in type(stored(result, "jobs")).__module__
(2, False)
>>> result.jobs["job_id"].tolist()
[1, 2]
"""

from __future__ import annotations

import dataclasses

import numpy as np


class Columns:
    """A table as ``{name: values}`` (numpy arrays or lists, all of one
    length), in column order.  :meth:`frame` builds the DataFrame, whose
    column types pandas infers from lists as it would from rows; give an
    array to fix a column's type (an array of objects stays one: pandas
    would read text in it as strings)."""

    def __init__(self, columns: dict):
        self.columns = columns

    @classmethod
    def from_rows(cls, rows: list[tuple], names) -> Columns:
        """The table of ``rows`` (tuples), as ``pandas.DataFrame(rows,
        columns=names)`` would make it: no rows give empty object columns."""
        if not rows:
            return cls({name: np.empty(0, dtype=object) for name in names})
        return cls(dict(zip(names, map(list, zip(*rows)))))

    def frame(self):
        import pandas as pd  # here only: a run that writes files never needs it

        return pd.DataFrame({name: pd.Series(values, dtype=object, copy=False)
                             if isinstance(values, np.ndarray) and values.dtype == object
                             else values for name, values in self.columns.items()}, copy=False)


class FrameField:
    """A dataclass field holding a DataFrame, set to one or to
    :class:`Columns`, which are built into a DataFrame when the field is
    first read (and kept).  ``default``: the Columns of a field that may be
    left out (shared by the instances: they are never changed)."""

    def __init__(self, default: Columns | None = None):
        self.default = default

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:  # the dataclass asking for the field's default
            if self.default is None:
                raise AttributeError(self.name)
            return self.default
        value = instance.__dict__[self.name]
        if isinstance(value, Columns):
            value = instance.__dict__[self.name] = value.frame()
        return value

    def __set__(self, instance, value) -> None:
        if value is self:  # left out, declared as ``field(default=FrameField(...), ...)``
            value = self.default
        instance.__dict__[self.name] = value


def stored(instance, name: str):
    """The table in field ``name`` of ``instance`` as kept: Columns not yet
    read as a DataFrame, or the DataFrame."""
    return instance.__dict__[name]


def replace(instance, **changes):
    """``dataclasses.replace``, passing on the tables not yet built as they
    are (``dataclasses.replace`` reads every field, which would build them)."""
    kept = {field.name: instance.__dict__[field.name]
            for field in dataclasses.fields(instance)
            if field.init and field.name not in changes}
    return type(instance)(**kept, **changes)


def columns_of(table) -> dict:
    """``{name: numpy array}`` of a DataFrame or :class:`Columns`, in order;
    lists become arrays of the type pandas would give them (text as
    objects)."""
    if not isinstance(table, Columns):
        return {name: table[name].to_numpy() for name in table.columns}
    return {name: _array(values) for name, values in table.columns.items()}


def row_count(table) -> int:
    """Rows of a DataFrame or :class:`Columns`."""
    if not isinstance(table, Columns):
        return len(table)
    return len(next(iter(table.columns.values()))) if table.columns else 0


def _array(values) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return values
    array = np.asarray(values)
    return array if array.dtype.kind in "biuf" else np.asarray(values, dtype=object)
