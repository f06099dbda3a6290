"""The store's entry points to dreaming and memory hygiene (:mod:`engrava_graph.dreaming`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from engrava_graph.dreaming import consolidate as dreaming
from engrava_graph.dreaming import hygiene
from engrava_graph.dreaming.config import DreamingConfig, HygienePolicy
from engrava_graph.dreaming.gates import require_cycle
from engrava_graph.dreaming.reflections import search_reflections
from engrava_graph.model.cycles import resolve_cycle
from engrava_graph.model.errors import HygienePolicyMissingError, ValidationFailedError
from engrava_graph.model.search import HybridSearchResult
from engrava_graph.search.fusion import resolve_recency
from engrava_graph.store._base import StoreBase
from engrava_graph.store.modes import writes


class DreamingMixin(StoreBase):
    """Consolidation, hygiene and reflection search of
    :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    @writes
    async def consolidate(
        self,
        current_cycle: int | None = None,
        *,
        config: DreamingConfig | None = None,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> dreaming.DreamResult:
        """Run one dreaming pass: cluster eligible thoughts into REFLECTIONs
        (see :mod:`engrava_graph.dreaming.consolidate`).

        The access buffer is flushed first and the pass's own reads record no access. When an
        enabled hygiene policy's ``check_every_n_cycles`` divides the cycle, a hygiene pass runs
        at the end (its result in ``hygiene``), as in the peer.

        Args:
            current_cycle: cycles; else the cycle provider's.
            config: this pass's settings; default the store's ``dreaming_config``.
            progress: ``(phase, done, total)`` callback (phases ``neighbours``, ``clusters``).

        Raises:
            CycleRequiredError: (ValueError) no cycle given and no provider.
            CycleProviderError: the provider returned an invalid cycle.
        """
        cycle = require_cycle(current_cycle, self.cycle_provider, "consolidate()")
        await self.flush_access_buffer()
        policy = self.hygiene_policy or HygienePolicy()
        context = dreaming.DreamContext(
            executor=self.executor,
            namespace=self.namespace,
            clock=self._clock,
            extract_entities=self._extract_entities,
            access_tracking_enabled=self.access_tracking_enabled,
            protected_priorities=policy.protected_priorities,
            dimensions=self.vector_dimensions,
        )
        token = self.suppress_access_tracking()
        try:
            await self.ensure_namespace()
            result = await dreaming.run_pass(
                context, cycle, config or self.dreaming_config, progress
            )
        finally:
            self.resume_access_tracking(token)
        if result.due and policy.enabled and cycle % policy.check_every_n_cycles == 0:
            result = replace(result, hygiene=await self.run_hygiene(cycle))
        return result

    @writes
    async def run_hygiene(
        self, current_cycle: int | None = None, *, now: datetime | None = None
    ) -> hygiene.HygieneResult:
        """Run one memory-hygiene pass: archive (reversibly) what the policy selects (see
        :mod:`engrava_graph.dreaming.hygiene`). Does not flush the access buffer first.

        Args:
            current_cycle: cycles; else the cycle provider's.
            now: the instant the wall-clock rules measure against (default: the store clock).

        Returns:
            The archived ids and counts; empty when the policy is disabled (no cycle needed).

        Raises:
            HygienePolicyMissingError: (RuntimeError) the store has no hygiene policy.
            CycleRequiredError: (ValueError) an enabled policy, no cycle given, no provider.
        """
        if self.hygiene_policy is None:
            raise HygienePolicyMissingError()
        if not self.hygiene_policy.enabled:
            return hygiene.HygieneResult()
        cycle = require_cycle(current_cycle, self.cycle_provider, "run_hygiene()")
        return await hygiene.run_hygiene(
            self.executor, self.namespace, self.hygiene_policy, cycle, now or self._clock()
        )

    async def search_reflections_only(
        self,
        query_text: str,
        query_vector: Sequence[float] | None = None,
        *,
        top_k: int = 10,
        current_cycle: int | None = None,
    ) -> HybridSearchResult:
        """Only REFLECTIONs, ranked by cosine to the query (the peer's method; see
        :mod:`engrava_graph.dreaming.reflections`). Each returned reflection counts an access.

        Raises:
            ValidationFailedError: ``top_k`` outside 1..1000 or a bad vector.
            EmbeddingError: the provider failed on the query text.
        """
        if not 1 <= top_k <= 1000:
            raise ValidationFailedError(f"top_k must be 1..1000, got {top_k}")
        vector = await self._query_vector(query_text, query_vector)
        cycle = resolve_cycle(current_cycle, self.cycle_provider)
        recency = resolve_recency(
            current_cycle=cycle, recency_now=None, provider_cycle=None, config=self.time_config
        )
        result = await search_reflections(
            self.executor,
            self.retrievable_scope(),
            vector,
            top_k,
            recency,
            self.time_config.recency_weight,
        )
        self._track([tid for tid, _ in result.results])
        return result
