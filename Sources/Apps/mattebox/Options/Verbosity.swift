import ArgumentParser
import MatteboxRuntime

/// `-q` and `-v`/`-vv`, on every command: they set the one log threshold
/// (`Log`), which MATTEBOX_LOG sets otherwise (default: warnings).
struct Verbosity: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Only print errors on standard error.") var quiet = false
    @Flag(name: .shortAndLong, help: "Print more on standard error: -v progress details, -vv debugging.")
    var verbose: Int

    func validate() throws {
        guard !(quiet && verbose > 0) else { throw ValidationError("choose one of -q and -v") }
        if quiet {
            Log.setThreshold(.error)
        } else if verbose > 0 {
            Log.setThreshold(verbose >= 2 ? .debug : .info)
        }
    }
}
