/// This build's version: `sluice --version`, `"version"` in `--stats`,
/// `sluice_build_info{version="..."}` in `--metrics`.
public enum SluiceVersion {
    public static let text = "0.9.0"
}
