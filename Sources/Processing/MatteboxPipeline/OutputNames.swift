/// The one rule for a free output name: the name itself, else `-2`, `-3`, ...
/// after it, as a batch names two inputs that would write the same file and
/// the app names a portrait copy beside its original.
package enum OutputNames {
    /// The first of `base`, `base-2`, `base-3`, ... that `isTaken` does not claim;
    /// nil after `limit` tries.
    package static func free(_ base: String, limit: Int = 10_000, isTaken: (String) -> Bool) -> String? {
        if !isTaken(base) { return base }
        return (2...max(2, limit)).lazy.map { "\(base)-\($0)" }.first { !isTaken($0) }
    }
}
