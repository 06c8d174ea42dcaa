"""One fetch of every followed source, as `abstracts fetch` and the app's key run it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tui import locations
from tui.inbox.client import TIMEOUT, Cancelled, Client, Clock, Unreachable
from tui.inbox.config import ConfigError, read_config
from tui.inbox.fetch import MAX_PAPERS, Fetcher, Progress, Settings, SourceResult
from tui.inbox.library import locked
from tui.inbox.sources import Source, SourceError, parse_source


@dataclass(slots=True)
class Outcome:
    """What a fetch did: each source's result, and why it stopped early (`problem`:
    offline, cancelled, nothing followed, another fetch running, a bad config)."""

    results: list[SourceResult] = field(default_factory=list)
    problem: str | None = None
    #: The problem is the user's to fix (nothing followed, a bad config), not the network's.
    usage: bool = False
    #: When each request was sent (the clock's monotonic time).
    sent: list[float] = field(default_factory=list)

    @property
    def stored(self) -> int:
        return sum(r.stored for r in self.results)

    @property
    def failed(self) -> list[SourceResult]:
        return [r for r in self.results if r.error is not None]


def followed_sources(config_dir: Path) -> tuple[list[Source], str]:
    """The sources in the config, and the API URL it names. Raises ConfigError, SourceError."""
    config = read_config(locations.config_path(config_dir))
    return [parse_source(text) for text in config.follow], config.api_url


def fetch_followed(
    data_dir: Path,
    config_dir: Path,
    clock: Clock,
    *,
    api_url: str | None = None,
    max_papers: int = MAX_PAPERS,
    progress: Callable[[Progress], None] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    timeout: float | None = None,
) -> Outcome:
    """Fetch every followed source into the data directory's library. Never raises for
    what the user or the network does: the `Outcome` says it."""
    try:
        sources, configured_url = followed_sources(config_dir)
    except (ConfigError, SourceError) as e:
        return Outcome(problem=str(e), usage=True)
    if not sources:
        return Outcome(
            problem="nothing followed yet: abstracts follow cs.LG, then fetch", usage=True
        )
    library = locations.library_dir(data_dir)
    settings = Settings(api_url or configured_url, max_papers=max_papers)
    client = Client(clock, cancelled=cancelled, timeout=TIMEOUT if timeout is None else timeout)
    fetcher = Fetcher(library, settings, client, progress=progress)
    outcome = Outcome(sent=client.sent)
    try:
        with locked(library, "fetch", wait=False) as mine:
            if not mine:
                return Outcome(problem="another fetch is running in this data directory")
            fetcher.fetch(sources)
    except Unreachable as e:
        outcome.problem = f"could not reach arXiv ({e}); nothing stored was changed"
    except Cancelled:
        outcome.problem = "cancelled; the next fetch resumes where this one stopped"
    except OSError as e:
        outcome.problem = f"could not write the library ({e})"
    outcome.results = fetcher.results
    return outcome
