/// The version of Mattebox itself, shown by `mattebox --version` and given to
/// plugins as host_version.
package enum MatteboxVersion {
    package static let current = "0.1.0"
}
