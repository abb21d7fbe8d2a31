/// The notes printed under a photo, one line per reason: notes that give the
/// same reason ("no face found, so no portrait matte", "no face found, so no
/// semantic mattes") are said once with every name they concern.
enum NoteLines {
    static func render(_ notes: [String: String]) -> [String] {
        var byReason: [(reason: String, names: [String], text: String)] = []
        for (name, text) in notes.sorted(by: { $0.key < $1.key }) {
            let reason = text.components(separatedBy: ", so ").first ?? text
            if let index = byReason.firstIndex(where: { $0.reason == reason }) {
                byReason[index].names.append(name)
            } else {
                byReason.append((reason, [name], text))
            }
        }
        return byReason.map { entry in
            "note \(entry.names.joined(separator: ", ")): \(entry.names.count > 1 ? entry.reason : entry.text)"
        }
    }
}
