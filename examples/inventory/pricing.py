"""Prices and discounts (NumPy- and Sphinx-style docstrings)."""


def apply_discount(price: float, percent: float, minimum=0.0) -> float:
    """Apply a percentage discount.

    Parameters
    ----------
    price : float
        The list price.
    percent : str
        The discount, from 0 to 100.
    minimum : str, optional
        The price never goes below this.

    Returns
    -------
    float
        The discounted price.
    """
    return max(minimum, price * (1 - percent / 100))


def price_table(prices, currency="EUR"):
    """Format prices as a table.

    :param prices: Prices by SKU.
    :param str currency: The currency code.
    :param int width: Column width.
    :returns: the table, one line per SKU.
    :rtype: int
    """
    rows = [f"{sku:10} {price:8.2f} {currency}" for sku, price in prices.items()]
    return "\n".join(rows)


def batches(prices, size=10):
    """Split prices into batches.

    :param prices: Prices by SKU.
    :param size: Batch size.
    :yields: lists of at most ``size`` SKUs.
    """
    return sorted(prices)
