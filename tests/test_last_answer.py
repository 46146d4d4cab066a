"""A rule's kept answer: the same objects get it again, anything else is
asked afresh."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from modules.last_answer import keeps_last_answer


@dataclass(frozen=True)
class Rule:
    asked: list

    @keeps_last_answer
    def total(self, first, second, third):
        self.asked.append((first, second, third))
        return first[0] + second[0] + third


def test_the_very_same_objects_get_the_kept_answer():
    rule = Rule([])
    a, b, c = [1], [2], 3.5
    assert rule.total(a, b, c) == rule.total(a, b, c) == 6.5
    assert len(rule.asked) == 1


@pytest.mark.parametrize("position", range(3))
def test_an_equal_but_other_object_anywhere_is_asked_afresh(position):
    rule = Rule([])
    question = [[1], [2], 3.5]
    rule.total(*question)
    again = list(question)
    again[position] = [1] if position == 0 else [2] if position == 1 else float("3.5")
    assert again[position] == question[position] and again[position] is not question[position]
    assert rule.total(*again) == 6.5
    assert len(rule.asked) == 2


def test_each_rule_keeps_its_own_answer():
    one, other = Rule([]), Rule([])
    a, b, c = [1], [2], 3.0
    one.total(a, b, c)
    other.total(a, b, c)
    assert len(one.asked) == len(other.asked) == 1
    assert one == other  # the kept answer is no field: rules still compare equal


def test_a_question_must_be_positional_parameters_without_defaults():
    def with_default(self, job, watts=0.0):
        return watts

    def with_star(self, *jobs):
        return jobs

    def reserved(self, _rules):
        return _rules

    for method in (with_default, with_star, reserved):
        with pytest.raises(TypeError, match=method.__name__):
            keeps_last_answer(method)
