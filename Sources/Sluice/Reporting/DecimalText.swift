/// A number with three decimals, without Foundation's formatter.
func format3(_ value: Double) -> String {
    let thousandths = Int((value * 1000).rounded())
    return "\(thousandths / 1000).\(pad(thousandths % 1000, 3))"
}
