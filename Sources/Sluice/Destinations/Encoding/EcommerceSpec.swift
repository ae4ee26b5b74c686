#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// Segment's Ecommerce spec, v2 (segment-docs src/connections/spec/ecommerce/v2.md,
/// segment.com/docs/connections/spec/ecommerce/v2): the `track` events a shop
/// sends, what each one's products are, and which carry money. Each provider
/// gives them its own meaning (GA4's recommended events, Amplitude's revenue
/// fields, Mixpanel's `amount`, Adjust's revenue); this is what they share.
enum EcommerceEvent: Int, CaseIterable, Sendable {
    // Browsing
    case productsSearched, productListViewed, productListFiltered
    // Promotions
    case promotionViewed, promotionClicked
    // Core ordering
    case productClicked, productViewed, productAdded, productRemoved, cartViewed, checkoutStarted,
         checkoutStepViewed, checkoutStepCompleted, paymentInfoEntered, orderCompleted, orderUpdated,
         orderRefunded, orderCancelled
    // Coupons
    case couponEntered, couponApplied, couponDenied, couponRemoved
    // Wishlisting, sharing, reviewing
    case productAddedToWishlist, productRemovedFromWishlist, wishlistProductAddedToCart, productShared, cartShared,
         productReviewed

    /// The event name the spec gives it ("Event Lifecycles").
    var specName: String {
        switch self {
        case .productsSearched: "Products Searched"
        case .productListViewed: "Product List Viewed"
        case .productListFiltered: "Product List Filtered"
        case .promotionViewed: "Promotion Viewed"
        case .promotionClicked: "Promotion Clicked"
        case .productClicked: "Product Clicked"
        case .productViewed: "Product Viewed"
        case .productAdded: "Product Added"
        case .productRemoved: "Product Removed"
        case .cartViewed: "Cart Viewed"
        case .checkoutStarted: "Checkout Started"
        case .checkoutStepViewed: "Checkout Step Viewed"
        case .checkoutStepCompleted: "Checkout Step Completed"
        case .paymentInfoEntered: "Payment Info Entered"
        case .orderCompleted: "Order Completed"
        case .orderUpdated: "Order Updated"
        case .orderRefunded: "Order Refunded"
        case .orderCancelled: "Order Cancelled"
        case .couponEntered: "Coupon Entered"
        case .couponApplied: "Coupon Applied"
        case .couponDenied: "Coupon Denied"
        case .couponRemoved: "Coupon Removed"
        case .productAddedToWishlist: "Product Added to Wishlist"
        case .productRemovedFromWishlist: "Product Removed from Wishlist"
        case .wishlistProductAddedToCart: "Wishlist Product Added to Cart"
        case .productShared: "Product Shared"
        case .cartShared: "Cart Shared"
        case .productReviewed: "Product Reviewed"
        }
    }

    /// Where an event's products are in its properties.
    enum Products {
        /// A `products` list ("products: Array<Product>"): lists, carts, checkouts, orders.
        case list
        /// The properties are one product's (`product_id`, `sku`, `name`, `price`, ...).
        case single
        /// No product.
        case none
    }

    var products: Products {
        switch self {
        case .productListViewed, .productListFiltered, .cartViewed, .checkoutStarted, .orderCompleted, .orderUpdated,
             .orderRefunded, .orderCancelled, .cartShared:
            .list
        case .productClicked, .productViewed, .productAdded, .productRemoved, .productAddedToWishlist,
             .productRemovedFromWishlist, .wishlistProductAddedToCart, .productShared, .productReviewed:
            .single
        default:
            .none
        }
    }

    /// Money that changed hands: "Order Completed" ("whenever an order/transaction was
    /// successfully completed") is revenue, "Order Refunded" gives it back. The other
    /// events carry amounts (a cart's `value`) that nobody was paid.
    enum Money { case revenue, refund }

    var money: Money? {
        switch self {
        case .orderCompleted: .revenue
        case .orderRefunded: .refund
        default: nil
        }
    }

    /// A product's properties in the spec ("products.$.product_id", ... ; the single-product
    /// events' own properties): what a provider reads as the product rather than the event.
    static let productFields: [StaticString] = [
        "product_id", "sku", "category", "name", "brand", "variant", "price", "quantity", "coupon", "position", "url", "image_url",
    ]

    /// Whether `key` (decoded UTF-8) is one of `productFields`.
    static func isProductField(_ key: Span<UInt8>) -> Bool {
        for field in productFields where ByteSpans.equal(key, field) { return true }
        return false
    }
}

/// Event names → spec events, for one destination: the spec's own names and the
/// pipeline's additions (`ecommerce_events:`). Asked once per `track` event per
/// destination, so a name that cannot be one is told apart by its first byte
/// and its length before any bytes are compared.
///
/// The spec's names also match written another way, as apps and routers send
/// them: in any case and with `_` or spaces between the words or none at all
/// (`order completed`, `order_completed`, `ORDER_COMPLETED`, `orderCompleted` are
/// all "Order Completed"). The pipeline's own names match exactly.
struct EcommerceNames: Sendable {
    private var entries: [(name: [UInt8], event: EcommerceEvent)] = []
    private var firstBytes = ByteSet()
    private var lastBytes = ByteSet()
    /// A bit per name length (63: any length from 63 on).
    private var lengths: UInt64 = 0
    /// The spec's names folded (`folded(_:)`), and what a name must have to fold into one:
    /// its first and last letters (either case) and a length in `foldedLengths`.
    private var foldedEntries: [(name: [UInt8], event: EcommerceEvent)] = []
    private var foldedFirstBytes = ByteSet()
    private var foldedLastBytes = ByteSet()
    private var foldedLengths = 0...0

    init(adding extra: [(name: [UInt8], event: EcommerceEvent)] = []) {
        var shortest = Int.max, longest = 0
        for event in EcommerceEvent.allCases {
            let name = Array(event.specName.utf8)
            add(name, event)
            let folded = EcommerceNames.folded(name.span)
            foldedEntries.append((folded, event))
            // The spec's names are ASCII letters at both ends: either case matches.
            foldedFirstBytes.insert(name[0] | 0x20)
            foldedFirstBytes.insert(name[0] & ~0x20)
            foldedLastBytes.insert(name[name.count - 1] | 0x20)
            foldedLastBytes.insert(name[name.count - 1] & ~0x20)
            // Written without separators (`orderCompleted`) a name is as short as its letters;
            // with them, as long as the spec's (one `_` or space for each of the spec's spaces).
            shortest = min(shortest, folded.count)
            longest = max(longest, name.count)
        }
        foldedLengths = shortest...longest
        for (name, event) in extra { add(name, event) }
    }

    private mutating func add(_ name: [UInt8], _ event: EcommerceEvent) {
        guard let first = name.first else { return }
        entries.removeAll { $0.name == name }
        entries.append((name, event))
        firstBytes.insert(first)
        lastBytes.insert(name[name.count - 1])
        lengths |= 1 << UInt64(min(name.count, 63))
    }

    /// The spec event `name` is, if any: most names are told apart by their first and
    /// last bytes and their length (the spec's all start with a capital, most end in `d`).
    @inline(__always)
    func event(named name: [UInt8]) -> EcommerceEvent? {
        guard let first = name.first else { return nil }
        let last = name[name.count - 1]
        if firstBytes.contains(first), lastBytes.contains(last), lengths & (1 << UInt64(min(name.count, 63))) != 0,
           let event = lookUp(name) {
            return event
        }
        guard foldedFirstBytes.contains(first), foldedLastBytes.contains(last), foldedLengths.contains(name.count) else {
            return nil
        }
        return lookUpFolded(name)
    }

    @inline(never)
    private func lookUp(_ name: [UInt8]) -> EcommerceEvent? {
        for entry in entries where ByteSpans.equal(entry.name.span, name.span) { return entry.event }
        return nil
    }

    @inline(never)
    private func lookUpFolded(_ name: [UInt8]) -> EcommerceEvent? {
        for entry in foldedEntries where EcommerceNames.folds(name.span, into: entry.name) { return entry.event }
        return nil
    }

    /// Whether `name` folded (`folded(_:)`) is `folded`, without making it.
    private static func folds(_ name: Span<UInt8>, into folded: [UInt8]) -> Bool {
        var at = 0
        for index in name.indices {
            let byte = name[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "_") { continue }
            guard at < folded.count, folded[at] == (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) else {
                return false
            }
            at += 1
        }
        return at == folded.count
    }

    /// A name in lowercase ASCII without its spaces and `_`: what the spec's names
    /// are compared on when not written exactly.
    static func folded(_ name: Span<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(name.count)
        for index in name.indices {
            let byte = name[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "_") { continue }
            out.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
        }
        return out
    }

    /// The spec event whose name is `text`, for reading `ecommerce_events:`.
    static func specEvent(named text: String) -> EcommerceEvent? {
        EcommerceEvent.allCases.first { $0.specName == text }
    }
}
