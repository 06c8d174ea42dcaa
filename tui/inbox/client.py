"""One polite request at a time to the arXiv API (standard library urllib).

arXiv asks API clients for at most one request every 3 seconds and a User-Agent that
names them (https://info.arxiv.org/help/api/tou.html). `Client.get` waits out the rest
of those 3 seconds on its `Clock`, retries a 503, a 429, a timeout and a page cut short
with growing pauses (a bounded number of times), and raises `Unreachable` when no
connection can be made at all (offline is normal: nothing is retried then).

Time is a `Clock` (`monotonic`, `sleep`, `now`): the tests pass a fake one, so
nothing in them sleeps; the app passes one whose sleep ends when the fetch is cancelled.
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol

from tui import __version__
from tui.inbox.atom import ApiError, Page, PageError, parse_page

#: arXiv's rule for API clients: one request every 3 seconds.
REQUEST_INTERVAL = 3.0
USER_AGENT = f"abstracts/{__version__} (terminal reader of paper abstracts; urllib)"
#: Attempts per page (the first and the retries) and the first pause between them.
ATTEMPTS = 4
BACKOFF = 5.0
#: The longest pause a Retry-After header may ask for before giving up.
MAX_RETRY_AFTER = 120.0
TIMEOUT = 30.0
_RETRIED_STATUS = frozenset({429, 500, 502, 503, 504})


class Clock(Protocol):
    """Time for the fetcher: a monotonic clock to space requests, a sleep, and the wall
    clock that dates arrivals."""

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...

    def now(self) -> datetime: ...


class SystemClock:
    """The real clock; `cancelled` (when given) ends a sleep early (the app's Escape)."""

    def __init__(self, cancelled: Callable[[float], bool] | None = None) -> None:
        self._cancelled = cancelled

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if self._cancelled is not None:
            self._cancelled(seconds)  # an Event's wait: returns at once when set
        else:
            time.sleep(seconds)

    def now(self) -> datetime:
        return datetime.now(UTC)


class FetchError(Exception):
    """A fetch that could not finish; the message names the source and the reason."""


class Unreachable(FetchError):
    """No connection to the API could be made (offline, DNS, refused)."""


class Cancelled(FetchError):
    """The reader cancelled the fetch."""


def query_url(api_url: str, query: str, start: int, max_results: int) -> str:
    """The API URL of one page of `query`, newest submissions first."""
    params = urllib.parse.urlencode(
        {
            "search_query": query,
            "sortBy": "submittedDate",
            "sortOrder": "descending",
            "start": start,
            "max_results": max_results,
        }
    )
    return f"{api_url}?{params}"


class Client:
    """Pages of the API, one request at least `REQUEST_INTERVAL` after the previous one."""

    def __init__(
        self,
        clock: Clock,
        *,
        timeout: float = TIMEOUT,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> None:
        self.clock = clock
        self.timeout = timeout
        self.cancelled = cancelled
        self._last: float | None = None
        #: Monotonic time of every request sent (the tests check their spacing).
        self.sent: list[float] = []

    def _wait_turn(self) -> None:
        if self._last is not None:
            wait = self._last + REQUEST_INTERVAL - self.clock.monotonic()
            if wait > 0:
                self.clock.sleep(wait)
        if self.cancelled():
            raise Cancelled("fetch cancelled")
        self._last = self.clock.monotonic()
        self.sent.append(self._last)

    def _request(self, url: str) -> bytes:
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            data: bytes = response.read()
            return data

    def get_page(self, url: str) -> Page:
        """One page, parsed; retried on 503/429/timeouts/short pages, `ATTEMPTS` times in all.
        Raises Unreachable (no connection), FetchError (still failing, or refused),
        ApiError (the API's error entry) or Cancelled."""
        pause = BACKOFF
        problem = ""
        for attempt in range(ATTEMPTS):
            if attempt:
                self.clock.sleep(pause)
                pause *= 2
            self._wait_turn()
            try:
                return parse_page(self._request(url))
            except urllib.error.HTTPError as e:
                if e.code not in _RETRIED_STATUS:
                    raise FetchError(_refusal(e)) from e
                problem = f"HTTP {e.code} {e.reason}"
                retry_after = (e.headers.get("Retry-After") or "").strip() if e.headers else ""
                if retry_after.isdigit():
                    pause = max(pause, min(float(retry_after), MAX_RETRY_AFTER))
            except urllib.error.URLError as e:
                if isinstance(e.reason, TimeoutError):
                    problem = f"no answer within {self.timeout:g} s"
                    continue
                raise Unreachable(str(e.reason)) from e
            except TimeoutError:
                problem = f"no answer within {self.timeout:g} s"
            except (ConnectionError, http.client.HTTPException, PageError) as e:
                problem = str(e) or type(e).__name__
            except OSError as e:
                raise Unreachable(str(e)) from e
        raise FetchError(f"the API kept failing ({problem}; tried {ATTEMPTS} times)")


def _refusal(error: urllib.error.HTTPError) -> str:
    """Why the API refused: its own error entry when the answer holds one (a malformed
    query gets HTTP 400 and an Atom error), else the HTTP status."""
    try:
        parse_page(error.read())
    except ApiError as api:
        return str(api)
    except (PageError, OSError, http.client.HTTPException):
        pass
    return f"the API answered HTTP {error.code} {error.reason}"
