/// The version of Mattebox itself, shown by `mattebox --version` and given to
/// plugins as host_version.
public enum MatteboxVersion {
    public static let current = "0.1.0"
}
