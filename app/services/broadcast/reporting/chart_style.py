"""The results picture's look, shared by its panels: the card's colours, numbers in the reader's digits, style."""
from __future__ import annotations

from app.services.broadcast.schedule.send_time import to_persian_digits

CARD, INK, MUTED, GRID = "#fbfaf6", "#1f2430", "#6b7280", "#e5e2d9"
BLUE, GREEN, ORANGE, RED, GREY = "#2563eb", "#059669", "#d97706", "#dc2626", "#9ca3af"


def number(value: float | int, lang: str) -> str:
    """Render a count with thousands separators, in Persian digits for fa."""
    text = f"{value:,}"
    return to_persian_digits(text).replace(",", "٬") if lang == "fa" else text


def ident(value: int, lang: str) -> str:
    """Render an id as the bot writes it everywhere (#1062, no thousands separator), in Persian digits for fa."""
    return to_persian_digits(str(value)) if lang == "fa" else str(value)


def percent(share: float | None, lang: str) -> str:
    """Render a 0..1 share as a percentage with one decimal ("—" when not measured)."""
    if share is None:
        return "—"
    text = f"{share * 100:.1f}"
    return to_persian_digits(text).replace(".", "٫") + "٪" if lang == "fa" else text + "%"


def style(ax, title: str, lang: str) -> None:
    """Give a panel the card's look: its title on the reading side, a light grid, no box."""
    ax.set_facecolor(CARD)
    ax.set_title(title, loc="right" if lang == "fa" else "left", fontsize=13, color=INK, pad=8)
    ax.grid(axis="y", color=GRID, linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color(GRID)
    ax.tick_params(colors=MUTED, labelsize=9, length=0)


def percent_formatter(lang: str):
    """Return a tick formatter writing percentages (the values are already ×100)."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda x, _pos: percent(x / 100, lang))


def count_formatter(lang: str):
    """Return a tick formatter writing whole counts in the reader's digits."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda x, _pos: number(int(x), lang) if x == int(x) else "")
