"""A small arithmetic evaluator for the agent's ``calculator`` tool. It parses the expression itself and
never calls ``eval``: numbers, + - * / (and × ÷), parentheses, unary minus, and round/min/max/abs.
Input length, nesting depth and magnitudes are bounded; every problem is a ``CalculatorError`` message.
"""

from __future__ import annotations

import math
import re

MAX_LENGTH = 300
MAX_DEPTH = 40
MAX_MAGNITUDE = 1e15
FUNCTIONS = {"round": (1, 2), "min": (1, 20), "max": (1, 20), "abs": (1, 1)}
_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?|\.\d+)|([A-Za-z_]+)|(.))")


class CalculatorError(ValueError):
    """Why an expression cannot be computed, in words a model can act on."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out = []
    for number, name, symbol in _TOKEN.findall(text):
        if number:
            out.append(("num", number))
        elif name:
            out.append(("name", name.lower()))
        elif symbol.strip():
            out.append(("op", {"×": "*", "÷": "/"}.get(symbol, symbol)))
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens, self.pos, self.depth = tokens, 0, 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise CalculatorError("the expression ends too early")
        if value is not None and token[1] != value:
            raise CalculatorError(f"expected '{value}' but found '{token[1]}'")
        self.pos += 1
        return token

    def expression(self) -> float:
        value = self.term()
        while (t := self.peek()) and t[1] in "+-" and t[0] == "op":
            self.take()
            value = _check(value + self.term() if t[1] == "+" else value - self.term())
        return value

    def term(self) -> float:
        value = self.unary()
        while (t := self.peek()) and t[0] == "op" and t[1] in "*/":
            self.take()
            right = self.unary()
            if t[1] == "/":
                if right == 0:
                    raise CalculatorError("division by zero")
                value = _check(value / right)
            else:
                value = _check(value * right)
        return value

    def unary(self) -> float:
        t = self.peek()
        if t and t[0] == "op" and t[1] in "+-":
            self.take()
            self._enter()
            value = self.unary()
            self.depth -= 1
            return -value if t[1] == "-" else value
        return self.atom()

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CalculatorError(f"the expression is nested deeper than {MAX_DEPTH} levels")

    def atom(self) -> float:
        kind, value = self.take()
        if kind == "num":
            return _check(float(value))
        if kind == "op" and value == "(":
            self._enter()
            inner = self.expression()
            self.take(")")
            self.depth -= 1
            return inner
        if kind == "name" and value in FUNCTIONS:
            return self.call(value)
        raise CalculatorError(f"unexpected '{value}'; use numbers, + - * /, parentheses, round, min, max, abs")

    def call(self, name: str) -> float:
        self.take("(")
        self._enter()
        args = [self.expression()]
        while (t := self.peek()) and t[1] == ",":
            self.take()
            args.append(self.expression())
        self.take(")")
        self.depth -= 1
        low, high = FUNCTIONS[name]
        if not low <= len(args) <= high:
            raise CalculatorError(f"{name} takes {low}..{high} arguments, got {len(args)}")
        if name == "round":
            digits = args[1] if len(args) == 2 else 0
            if not (float(digits).is_integer() and 0 <= digits <= 10):
                raise CalculatorError("round's digits must be a whole number between 0 and 10")
            return round(args[0], int(digits))
        if name == "abs":
            return abs(args[0])
        return min(args) if name == "min" else max(args)  # over the argument list: max(5) is 5


def _check(value: float) -> float:
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise CalculatorError(f"a number exceeds the limit of {MAX_MAGNITUDE:g} in magnitude")
    return value


def calculate(expression: str) -> float:
    """The value of an arithmetic expression; raises ``CalculatorError`` with a readable reason.

    >>> calculate("(474 + 346) * 2")
    1640.0
    >>> calculate("__import__('os')")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    planshape.validators.travelplanner.agent.calculator.CalculatorError: unexpected '__import__'; use numbers, ...
    """
    if not isinstance(expression, str):
        raise CalculatorError(f"the expression must be text, got {type(expression).__name__}")
    if len(expression) > MAX_LENGTH:
        raise CalculatorError(f"the expression is longer than {MAX_LENGTH} characters")
    if not expression.strip():
        raise CalculatorError("the expression is empty")
    parser = _Parser(_tokens(expression))
    value = parser.expression()
    if (rest := parser.peek()) is not None:
        raise CalculatorError(f"unexpected '{rest[1]}' after a complete expression")
    return value


def format_number(value: float) -> str:
    """Integers without a decimal point; others to at most 6 decimals."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")
