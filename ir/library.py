"""The small built-in library: the standard packages the corpus imports, as types, units and literals."""

from __future__ import annotations

import functools

from ir import syntax as s

LIBRARY_PATH = "<library>"

LIBRARY_TEXT = """
package ScalarValues {
    attribute def ScalarValue; attribute def Boolean; attribute def String;
    attribute def NumericalValue; attribute def Number; attribute def Complex;
    attribute def Real; attribute def Rational; attribute def Integer;
    attribute def Natural; attribute def Positive;
}
package Base { attribute def Anything; attribute def DataValue; part def Object; }
package Occurrences { occurrence def Occurrence; }
package ISQ {
    attribute def MassValue; attribute def LengthValue; attribute def DurationValue;
    attribute def TimeValue; attribute def SpeedValue; attribute def AccelerationValue;
    attribute def ForceValue; attribute def TemperatureValue; attribute def PowerValue;
    attribute def EnergyValue; attribute def TorqueValue; attribute def VoltageValue;
    attribute def CurrentValue; attribute def PressureValue; attribute def FrequencyValue;
    attribute mass; attribute length; attribute duration; attribute time; attribute speed;
    attribute acceleration; attribute force; attribute temperature; attribute power;
    attribute energy; attribute torque; attribute voltage; attribute current; attribute pressure;
}
package SI {
    attribute s; attribute ms; attribute min; attribute h; attribute m; attribute km; attribute mm;
    attribute kg; attribute g; attribute N; attribute J; attribute W; attribute kW; attribute V;
    attribute A; attribute Pa; attribute K; attribute Hz; attribute rad;
}
package Stochastic { metadata def Probability { attribute p : ScalarValues::Real; } }
package VerificationCases {
    enum def VerdictKind { enum pass; enum fail; enum inconclusive; enum error; }
    verification def VerificationCase;
}
package Time { part def Clock { attribute currentTime : ScalarValues::Real; } part universalClock : Clock; }
package Actions { action def Action; }
package States { state def StateAction; }
package Parts { part def Part; }
package Items { item def Item; }
package Requirements { requirement def RequirementCheck; }
package Constraints { constraint def ConstraintCheck; }
package Calculations { calc def Calculation; }
package SequenceFunctions {}
package BaseFunctions {}
package NumericalFunctions {}
package TrigFunctions {}
package MeasurementReferences {}
package Quantities {}
"""

LIBRARY_PACKAGES = ("ScalarValues", "Base", "Occurrences", "ISQ", "SI", "Stochastic", "VerificationCases",
                    "Time", "Actions", "States", "Parts", "Items", "Requirements", "Constraints",
                    "Calculations", "SequenceFunctions", "BaseFunctions", "NumericalFunctions",
                    "TrigFunctions", "MeasurementReferences", "Quantities")


@functools.lru_cache(maxsize=1)
def library_document() -> s.Document:
    """The library's syntax tree, parsed once per process."""
    from ir.parse import parse

    return parse(LIBRARY_TEXT, LIBRARY_PATH)
