"""The one exception the SDK raises."""

from __future__ import annotations


class PaygateError(Exception):
    """Every failure the SDK reports.

    - an error answer of the gateway: ``status``, ``code``, ``detail`` and ``trace_id`` from the
      error envelope (``{"status": "error", "fault": {"code", "detail"}, "traceId"}``);
    - a ``429``: ``code`` ``RATE_LIMITED``, ``retry_after`` in seconds from ``Retry-After``;
    - an answer that is not the gateway's JSON (a proxy's HTML page): ``code`` ``HTTP_<status>``,
      ``detail`` the start of the answer;
    - no answer at all (refused, dropped, timed out): ``status`` 0, ``code`` ``NETWORK_ERROR``;
    - a callback or webhook delivery that fails verification: ``status`` 400, a ``CALLBACK_*`` code.
    """

    status: int
    code: str
    detail: str | None
    trace_id: str | None
    retry_after: float | None

    def __init__(
        self,
        *,
        status: int,
        code: str,
        detail: str | None = None,
        trace_id: str | None = None,
        retry_after: float | None = None,
        message: str | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.detail = detail
        self.trace_id = trace_id
        self.retry_after = retry_after
        if message is None:
            message = code
            if status:
                message += f" (HTTP {status})"
            if detail:
                message += f": {detail}"
            if trace_id:
                message += f" [trace {trace_id}]"
        super().__init__(message)

    def __repr__(self) -> str:
        return f"PaygateError(status={self.status!r}, code={self.code!r}, detail={self.detail!r}, trace_id={self.trace_id!r}, retry_after={self.retry_after!r})"
