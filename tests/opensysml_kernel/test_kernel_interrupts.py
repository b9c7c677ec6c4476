"""The kernel's one SIGINT handler: Ctrl-C stops a running cell and is ignored between cells, and no
interrupt changes which handler is installed. (An interrupt landing as a cell ended once raised inside the
handler switch after the cell, leaving the raising handler installed; the next interrupt, pressed as the
reply was sent, ended the kernel. Too rare a race to hit on demand through a live kernel: the handler's
contract is tested here, in this process.)"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from opensysml_kernel import kernel


@pytest.fixture
def handler() -> Iterator[None]:
    previous = signal.signal(signal.SIGINT, kernel._on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)  # the handler runs here, between bytecodes


def test_an_interrupt_stops_a_running_cell(handler: None) -> None:
    with pytest.raises(KeyboardInterrupt), kernel._interruptible():
        _interrupt()
    assert signal.getsignal(signal.SIGINT) is kernel._on_interrupt


def test_interrupts_between_cells_are_ignored_and_change_no_handler(handler: None) -> None:
    with kernel._interruptible():
        pass
    _interrupt()  # as the reply is sent
    _interrupt()
    assert signal.getsignal(signal.SIGINT) is kernel._on_interrupt
    with pytest.raises(KeyboardInterrupt), kernel._interruptible():
        _interrupt()  # the next cell is still interruptible
    _interrupt()
