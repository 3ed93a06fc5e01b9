import Foundation

/// Where pocketsphinx's files for one language live: acoustic model, language model and dictionary.
///
/// Debian's `pocketsphinx-en-us` installs them under `/usr/share/pocketsphinx/model/en-us`;
/// `LLMSTER_POCKETSPHINX_MODEL` names another directory with the same layout.
public struct PocketSphinxModel: Sendable, Equatable {
    /// The directory holding the language's files.
    public let directory: String
    /// The language, as the model's file names spell it (`en-us`).
    public let language: String

    /// The model for `language` in `LLMSTER_POCKETSPHINX_MODEL`, else Debian's location.
    public init(language: String, environment: [String: String]) {
        self.language = language
        directory =
            environment["LLMSTER_POCKETSPHINX_MODEL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "/usr/share/pocketsphinx/model/\(language)"
    }

    /// The acoustic model directory.
    public var acousticModel: String { directory + "/" + language }
    /// The language model.
    public var languageModel: String { directory + "/" + language + ".lm.bin" }
    /// The pronunciation dictionary.
    public var dictionary: String { directory + "/cmudict-" + language + ".dict" }

    /// What is missing from the model, empty when everything is there.
    public var missingFiles: [String] {
        let files = FileManager.default
        var missing: [String] = []
        if !files.fileExists(atPath: acousticModel + "/mdef") { missing.append(acousticModel) }
        if !files.fileExists(atPath: languageModel) { missing.append(languageModel) }
        if !files.fileExists(atPath: dictionary) { missing.append(dictionary) }
        return missing
    }
}
