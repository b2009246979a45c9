package shop;

import java.util.ArrayList;
import java.util.List;

/** A shopping cart: items and their total price. */
public class Cart {
    private final List<Integer> prices = new ArrayList<>();

    /**
     * Adds an item's price, {@code quantity} times.
     *
     * @param price the price of one item, in cents
     * @param quantiy how many to add
     */
    public void add(int price, int quantity) {
        for (int i = 0; i < quantity; i++) {
            prices.add(price);
        }
    }

    /**
     * Empties the cart.
     *
     * @return the number of items removed
     */
    public void clear() {
        prices.clear();
    }

    /**
     * The total price, in cents.
     *
     * @return the sum of every price
     * @throws java.io.IOException when the prices cannot be read
     */
    public int total() {
        int sum = 0;
        for (int price : prices) {
            sum += price;
        }
        return sum;
    }
}
