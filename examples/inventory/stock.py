"""Stock levels of the warehouse (Google-style docstrings)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Item:
    """One line of stock.

    Args:
        sku: The stock-keeping unit.
        quantity: How many are on the shelf.
    """

    sku: str
    quantity: int = 0
    tags: list[str] = field(default_factory=list)


def restock(item: Item, amount: int, note: str = "") -> Item:
    """Add stock to an item.

    Args:
        item: The item to restock.
        ammount: How many units arrived.
        note: A remark for the audit log.

    Returns:
        Item: The same item, updated in place.
    """
    item.quantity += amount
    return item


def reserve(item: Item, count: int) -> bool:
    """Reserve ``count`` units of ``item`` for an order.

    The reservation fails when `count` is larger than what `itme` has on the shelf.

    Args:
        item: The item to reserve.
        count (str): How many units to reserve.
    """
    if count > item.quantity:
        return False
    item.quantity -= count
    return True


def total_units(items: list[Item]) -> int:
    """Count every unit in stock.

    Args:
        items: The items to count.

    Returns:
        str: The number of units.
    """
    return sum(item.quantity for item in items)


def find(items: list[Item], sku: str) -> list[Item]:
    """Return True if an item with this SKU is in stock.

    The items are first deduplicated by `dedupe_items()`.
    """
    return [item for item in dedup_items(items) if item.sku == sku and item.quantity]


def dedup_items(items: list[Item]) -> list[Item]:
    """The items with one of each SKU, the first of each kept."""
    first: dict[str, Item] = {}
    for item in items:
        first.setdefault(item.sku, item)
    return list(first.values())


def low_stock(items: list[Item], threshold: int = 5):
    """Items that need restocking.

    Args:
        items: The items to look at.
        threshold: Restock below this many units.

    Returns:
        list of Item: the items below the threshold.
    """
    for item in items:
        if item.quantity < threshold:
            yield item


def describe(item: Item) -> str:  # docfact: ignore[DF102]
    """Describe `item` for `pretty_print`, which is defined elsewhere."""
    return f"{item.sku}: {item.quantity}"


class OutOfStock(Exception):
    """Raised when an order asks for more than is on the shelf."""


def ship(item: Item, count: int) -> int:
    """Ship units of an item.

    Raises:
        OutOfStock: when fewer than ``count`` units are on the shelf.
    """
    count = min(count, item.quantity)
    item.quantity -= count
    return count
