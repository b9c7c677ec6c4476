"""Lowering: behaviors to the frozen graphs of `ir.graphs`, every graph a behavior runs built once.

`actions` lowers an action's members to its flow; `members` reads what those members are; `flows`
keeps a model's graphs and makes the flows a fine run enters (so the runtime builds none); `states`
lowers a state machine (its behaviors through `actions`). The graph
types are re-exported here so `ir.lower` still names everything it named as one module.
"""

from __future__ import annotations

from ir.graphs import ActionGraph, Attribute, Body, Edge, Footprint, Node, NodeKind, accept_of
from ir.lower.actions import lower_action, lower_block
from ir.lower.flows import IMPLICIT_TERMINATE, ModelGraphs
from ir.lower.members import (
    BLOCK_STATEMENTS,
    FLOW_MEMBERS,
    SIMPLE_STATEMENTS,
    attribute_of,
    is_feature,
    is_substep,
    may_hold_none,
    multiplicity_count,
    parameter_bindings,
    parameter_direction,
    performances,
    performed_action,
    statement_label,
    states_a_flow,
    then_after,
)
from ir.lower.states import check_machines, check_signal, exhibited_machines, instance_machines, lower_state

__all__ = [
    "BLOCK_STATEMENTS",
    "FLOW_MEMBERS",
    "IMPLICIT_TERMINATE",
    "SIMPLE_STATEMENTS",
    "ActionGraph",
    "Attribute",
    "Body",
    "Edge",
    "Footprint",
    "ModelGraphs",
    "Node",
    "NodeKind",
    "accept_of",
    "attribute_of",
    "check_machines",
    "check_signal",
    "exhibited_machines",
    "instance_machines",
    "is_feature",
    "is_substep",
    "lower_action",
    "lower_block",
    "lower_state",
    "may_hold_none",
    "multiplicity_count",
    "parameter_bindings",
    "parameter_direction",
    "performances",
    "performed_action",
    "statement_label",
    "states_a_flow",
    "then_after",
]
