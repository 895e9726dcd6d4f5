"""A fuzzing campaign: the loop over programs, in one process or several.

``fuzz(config) -> CampaignReport`` runs programs ``0, 1, 2, ...`` of the campaign's seed (program
``i`` is generated from ``program_seed(seed, i)``, so a campaign is deterministic and any program
can be replayed alone) until ``config.count`` programs or ``config.seconds`` have passed. Each
program is checked by ``case.check_case``; failures are shrunk (``shrink``) and written out by
``report``.
"""
from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterator, Optional

from obligations.records import replace
from verifier.fuzz.case import CRASH, Case, Config, Failure, check_case, on_a_large_stack, program_seed
from verifier.fuzz.generate import generate
from verifier.fuzz.report import CampaignReport
from verifier.fuzz.shrink import shrink_failure
from verifier.language.pretty import pretty_program


# ---- the campaign ----------------------------------------------------------------------------


def fuzz(config: Config, progress: Optional[Callable[[Case], None]] = None):
    """Run a campaign (see the module docstring); returns a ``report.CampaignReport``. With
    ``config.workers`` above 1 (and a ``count``), the programs are checked in that many
    processes; they are reported, and their failures shrunk, in program order."""
    report = CampaignReport(config)
    start = time.perf_counter()
    for case in cases(config, start):
        for failure in case.failures:
            if config.shrink and report.shrink_budget_left() and report.is_new(failure):
                on_a_large_stack(lambda f=failure: shrink_failure(f, config))
        report.add(case)
        if progress is not None:
            progress(case)
    report.seconds = time.perf_counter() - start
    return report


def cases(config: Config, start: float) -> Iterator[Case]:
    """The checked programs of the campaign, in order (see ``fuzz``)."""
    if config.only is not None:
        yield _indexed(config.seed, config.only, config)
        return
    if config.workers > 1 and config.count is not None:
        yield from _in_processes(config)
        return
    index = 0
    while (config.count is None or index < config.count) and \
            (config.seconds is None or time.perf_counter() - start < config.seconds):
        yield _indexed(config.seed, index, config)
        index += 1


def _indexed(seed: int, index: int, config: Config) -> Case:
    case = check_case(program_seed(seed, index), config)
    case.index = index
    return case


def _in_processes(config: Config) -> Iterator[Case]:
    """Programs ``0 .. count-1`` checked by ``config.workers`` processes. A worker that dies
    (the interpreter crashing on a program) breaks the pool: the programs in flight are then
    run one at a time, each in a fresh process, so that the one that kills it is reported as a
    ``crash`` and the campaign goes on."""
    context = multiprocessing.get_context("fork")
    worker_config = replace(config, workers=1, shrink=False)
    index, count, in_flight = 0, config.count, 4 * config.workers
    while index < count:
        lost = None
        with ProcessPoolExecutor(config.workers, mp_context=context) as pool:
            futures = [pool.submit(_in_worker, config.seed, i, worker_config) for i in range(index, count)]
            for i, future in enumerate(futures, index):
                try:
                    yield future.result()
                except BrokenProcessPool:
                    lost = i
                    break
        if lost is None:
            return
        for i in range(lost, min(lost + in_flight, count)):
            with ProcessPoolExecutor(1, mp_context=context) as alone:
                try:
                    yield alone.submit(_in_worker, config.seed, i, worker_config).result()
                except BrokenProcessPool:
                    yield _died(config.seed, i)
        index = min(lost + in_flight, count)


def _in_worker(seed: int, index: int, config: Config) -> Case:
    """``_indexed`` in a worker process (looked up there, so that it can be replaced)."""
    return _indexed(seed, index, config)


def _died(seed: int, index: int) -> Case:
    """The case of a program whose check killed its process."""
    gen_seed = program_seed(seed, index)
    text = pretty_program(generate(gen_seed).program())
    case = Case(gen_seed, index=index, text=text)
    case.failures.append(Failure(CRASH, "", text, gen_seed, "crash",
                                 message="the process checking this program died (the interpreter crashed)"))
    return case


__all__ = ["fuzz", "cases"]
