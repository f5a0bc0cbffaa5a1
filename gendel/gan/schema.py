"""The declared schema of a GAN result file, and the checksum of its content.

A result file (``gendel.gan.result_files``) is read only if it passes two checks:

1. **Its checksum.** ``checksum`` records the SHA-256 of the rest of the JSON (in a canonical
   form: sorted keys, no spaces) and of the arrays of its ``.npz`` (names, dtypes, shapes, bytes),
   written with it by ``gendel.gan.result_files.write_result``. A file edited since, or an arrays
   file of another job, does not match (:func:`content_checksum`).
2. **This schema.** :class:`ResultRecord` declares every section with pydantic (2.x): types (a
   count is an integer, never a float or a string), ranges (counts non-negative, probabilities
   in [0, 1], seconds non-negative, every statistic finite), sizes (10 label counts, R values of
   each statistic), sums (every model's label counts add up to ``m_labels``; the kept images to
   ``n_train − n_deleted``), and consistency of the job with its profile and with its deletion
   set: the label counts kept must be what Appendix E.1's rule keeps of the recorded counts for
   the job's setting and λ (:func:`gendel.gan.images.label_deletion_mask`).

pydantic rather than a JSON Schema validator: the rules above that relate two fields (sums,
the deletion rule) are plain Python in one place, and it imports in a tenth of a second.

Examples
--------
>>> from gendel.gan.result_files import STORED_RESULTS
>>> import json
>>> record = json.loads((STORED_RESULTS / "tiny" / "mnist-even-0.7-seed0.json").read_text())
>>> validate(record).job.name
'mnist-even-0.7-seed0'
>>> record["labels"]["approx"][0] = -1
>>> validate(record)
Traceback (most recent call last):
ValueError: labels.approx.0: Input should be greater than or equal to 0 (got -1)
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, ValidationError, model_validator

from gendel.cache import arrays_digest

#: The image data sets and deletion settings a result can be of.
_DATASETS = Literal["mnist", "fashion-mnist"]
_SETTINGS = Literal["even", "odd"]

Count = Annotated[StrictInt, Field(ge=0)]
PositiveCount = Annotated[StrictInt, Field(ge=1)]
Number = StrictFloat | StrictInt
Finite = Annotated[Number, Field(allow_inf_nan=False)]
Seconds = Annotated[Number, Field(ge=0, allow_inf_nan=False)]
Probability = Annotated[Number, Field(ge=0, le=1, allow_inf_nan=False)]
LabelCounts = Annotated[list[Count], Field(min_length=10, max_length=10)]
Hex16 = Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class _OpenRecord(BaseModel):
    """A record whose further entries are free (numbers must still be finite)."""
    model_config = ConfigDict(extra="allow", allow_inf_nan=False, strict=True)

    @model_validator(mode="after")
    def _finite_extras(self):
        for key, value in (self.model_extra or {}).items():
            if not _finite_tree(value):
                raise ValueError(f"{key} holds a number that is not finite")
        return self


def _finite_tree(value):
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, (int, float)):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite_tree(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite_tree(v) for v in value)
    return False


class _JobRecord(_Record):
    profile: str
    dataset: _DATASETS
    setting: _SETTINGS
    lam: Annotated[Number, Field(gt=0, lt=1)]
    seed: Count
    name: str

    @model_validator(mode="after")
    def _name(self):
        expected = f"{self.dataset}-{self.setting}-{self.lam:g}-seed{self.seed}"
        if self.name != expected:
            raise ValueError(f"the job's name {self.name!r} is not its fields' ({expected!r})")
        return self


class _ProfileRecord(_OpenRecord):
    name: str
    m_labels: PositiveCount
    m_test: PositiveCount
    repeats: PositiveCount
    bound: Annotated[Number, Field(ge=1, allow_inf_nan=False)]


class _ProvenanceRecord(_OpenRecord):
    fingerprint: Hex16 | None
    command: str
    hardware: dict
    seconds: dict[str, Seconds]


class _DataRecord(_OpenRecord):
    n_train: PositiveCount
    n_deleted: Count
    n_test: PositiveCount | None = None  # not in format version 1
    label_counts_X: LabelCounts
    label_counts_kept: LabelCounts
    label_counts_test: LabelCounts | None = None  # not in format version 1

    @model_validator(mode="after")
    def _sums(self):
        if sum(self.label_counts_X) != self.n_train:
            raise ValueError(f"the label counts of X add up to {sum(self.label_counts_X)}, not n_train = {self.n_train}")
        if sum(self.label_counts_kept) != self.n_train - self.n_deleted:
            raise ValueError(f"the kept label counts add up to {sum(self.label_counts_kept)}, not n_train − n_deleted"
                             f" = {self.n_train - self.n_deleted}")
        if self.label_counts_test is not None and sum(self.label_counts_test) != self.n_test:
            raise ValueError(f"the test label counts add up to {sum(self.label_counts_test)}, not n_test = {self.n_test}")
        return self


class _ClassifierRecord(_OpenRecord):
    test_accuracy: Probability
    n_test: PositiveCount
    confidence: dict[str, Probability]


class _LabelsRecord(_Record):
    pre: LabelCounts
    re: LabelCounts
    approx: LabelCounts
    control: LabelCounts | None = None


class _SamplingRecord(_OpenRecord):
    bound: Annotated[Number, Field(ge=1, allow_inf_nan=False)]
    acceptance_rate: Probability
    bound_exceeded: Probability
    n_proposals: Count


class _StatisticValues(_Record):
    h0: list[Finite]
    h1: list[Finite]
    control: list[Finite] | None = None


class _Q3Record(_Record):
    m: PositiveCount
    R: PositiveCount
    statistics: dict[str, _StatisticValues]
    ks: dict[str, dict[str, Probability]]

    @model_validator(mode="after")
    def _sizes(self):
        for key, values in self.statistics.items():
            for which in ("h0", "h1", "control"):
                v = getattr(values, which)
                if v is not None and len(v) != self.R:
                    raise ValueError(f"statistic {key!r} has {len(v)} {which} values, not R = {self.R}")
        return self


class ResultRecord(_Record):
    """A result file of format version 2 (version 1, the stored gpu results, after conversion by
    ``JobResult.from_dict``): every section, its types, ranges, sizes and sums, and the job's
    consistency with its profile and its deletion set (see the module text).

    Examples
    --------
    >>> from gendel.gan.result_files import STORED_RESULTS
    >>> record = json.loads((STORED_RESULTS / "tiny" / "mnist-odd-0.7-seed0.json").read_text())
    >>> record.pop("checksum") and ResultRecord.model_validate(record).labels.approx == record["labels"]["approx"]
    True
    """

    version: Literal[1, 2]
    job: _JobRecord
    profile: _ProfileRecord
    provenance: _ProvenanceRecord
    data: _DataRecord
    classifier: _ClassifierRecord
    labels: _LabelsRecord
    sampling: _SamplingRecord
    reweighted: dict | None = None
    q3: _Q3Record
    curves: dict | None = None
    timings: dict[str, Seconds]
    losses: dict

    @model_validator(mode="after")
    def _consistent(self):
        if self.job.profile != self.profile.name:
            raise ValueError(f"the job is of profile {self.job.profile!r}, its profile record of {self.profile.name!r}")
        m = self.profile.m_labels
        for model in ("pre", "re", "approx", "control"):
            counts = getattr(self.labels, model)
            if counts is None:
                if self.version == 2:
                    raise ValueError(f"labels.{model} is missing")
                continue
            if sum(counts) != m:
                raise ValueError(f"the label counts of {model!r} add up to {sum(counts)}, not m_labels = {m}")
        if self.version == 2 and (self.q3.m != self.profile.m_test or self.q3.R != self.profile.repeats):
            raise ValueError(f"q3 has m = {self.q3.m}, R = {self.q3.R}; its profile m_test = {self.profile.m_test}, "
                             f"repeats = {self.profile.repeats}")
        if self.version == 2 and any(v.control is None for v in self.q3.statistics.values()):
            raise ValueError("a Q3 statistic lacks its control values")
        if self.version == 2 and (self.data.n_test is None or self.data.label_counts_test is None):
            raise ValueError("data lacks n_test or label_counts_test")
        expected = kept_counts(self.data.label_counts_X, self.job.setting, self.job.lam)
        if list(self.data.label_counts_kept) != expected:
            raise ValueError(f"the kept label counts {self.data.label_counts_kept} are not what {self.job.setting}-"
                             f"{self.job.lam:g} keeps of the label counts of X ({expected})")
        return self


def kept_counts(counts_X, setting, lam):
    """The label counts of X ∖ X′ that Appendix E.1's rule keeps of ``counts_X``: every label of
    the other parity, ``round(λ n_c)`` (halves up) of each label c of ``setting``'s parity
    (:func:`gendel.gan.images.label_deletion_mask`).

    Examples
    --------
    >>> kept_counts([10] * 10, "even", 0.7)
    [7, 10, 7, 10, 7, 10, 7, 10, 7, 10]
    """
    first = 0 if setting == "even" else 1
    return [int(np.floor(lam * n + 0.5)) if c % 2 == first % 2 else int(n) for c, n in enumerate(counts_X)]


def _message(exc):
    """The first error of a pydantic ValidationError in one line: where, what, the value."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    text = err["msg"].removeprefix("Value error, ")
    value = err.get("input")
    shown = "" if isinstance(value, (dict, list)) or err["type"] == "value_error" else f" (got {value!r})"
    more = f"; and {len(exc.errors()) - 1} more" if len(exc.errors()) > 1 else ""
    return f"{where}: {text}{shown}{more}" if where else f"{text}{more}"


def validate(record):
    """The :class:`ResultRecord` of a result's JSON part (a dict), or ``ValueError`` naming the
    first field that breaks the schema (see the module text).

    Examples
    --------
    >>> validate({"version": 2})
    Traceback (most recent call last):
    ValueError: job: Field required; and 9 more
    """
    try:
        return ResultRecord.model_validate({k: v for k, v in record.items() if k != "checksum"})
    except ValidationError as exc:
        raise ValueError(_message(exc)) from None


def _canonical(record):
    return json.dumps({k: v for k, v in record.items() if k != "checksum"}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True, allow_nan=True).encode()


def content_checksum(record, arrays):
    """The ``checksum`` entry of a result: SHA-256 of the JSON part (all but ``checksum``, in a
    canonical form) and of the arrays.

    Examples
    --------
    >>> c = content_checksum({"a": 1}, {"x": np.zeros(2)})
    >>> sorted(c), c == content_checksum({"a": 1}, {"x": np.zeros(2)}), c == content_checksum({"a": 2}, {"x": np.zeros(2)})
    (['algorithm', 'arrays', 'json'], True, False)
    """
    return {"algorithm": "sha256", "json": hashlib.sha256(_canonical(record)).hexdigest(),
            "arrays": arrays_digest(arrays)}


def checksum_problem(record, arrays):
    """What is wrong with a result's checksum (a sentence), or None when it matches its content.

    Examples
    --------
    >>> record = {"a": 1}
    >>> record["checksum"] = content_checksum(record, {})
    >>> checksum_problem(record, {}) is None
    True
    >>> record["a"] = 2
    >>> checksum_problem(record, {})
    'its content was changed after it was written (the checksum of its JSON does not match)'
    """
    recorded = record.get("checksum")
    if not isinstance(recorded, dict) or set(recorded) != {"algorithm", "json", "arrays"}:
        return "it carries no checksum of its content"
    actual = content_checksum(record, arrays)
    if recorded["json"] != actual["json"]:
        return "its content was changed after it was written (the checksum of its JSON does not match)"
    if recorded["arrays"] != actual["arrays"]:
        return "its arrays file is not the one written with it (another job's, another run's, or edited)"
    return None
