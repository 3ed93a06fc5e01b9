internal import CPocketSphinx
import Foundation

/// Speech recognition with CMU pocketsphinx, entirely on this machine.
public final class PocketSphinxRecognizer: SpeechRecognizer {
    private let config: OpaquePointer
    private let decoder: OpaquePointer

    /// Whether the engine's library (opened when a recognizer is made, not at start-up) is installed.
    public static var engineInstalled: Bool { llmster_ps_available() != 0 }

    /// Loads `model` (about a second for the English model); throws when the engine refuses it.
    public init(model: PocketSphinxModel) throws(VoiceError) {
        guard Self.engineInstalled else {
            throw .recognizer("pocketsphinx is not installed (Debian: apt install libpocketsphinx3)")
        }
        llmster_ps_silence_log()
        guard let config = llmster_ps_config(model.acousticModel, model.languageModel, model.dictionary) else {
            throw .recognizer("pocketsphinx rejected the model in \(model.directory)")
        }
        guard let decoder = llmster_ps_init(config) else {
            llmster_cmd_ln_free_r(config)
            throw .recognizer("pocketsphinx could not load the model in \(model.directory)")
        }
        self.config = config
        self.decoder = decoder
    }

    deinit {
        llmster_ps_free(decoder)
        llmster_cmd_ln_free_r(config)
    }

    public func beginUtterance() throws(VoiceError) {
        guard llmster_ps_start_utt(decoder) >= 0 else { throw .recognizer("pocketsphinx could not start an utterance") }
    }

    public func process(_ samples: ArraySlice<Int16>) throws(VoiceError) {
        let result = samples.withUnsafeBufferPointer { buffer in
            llmster_ps_process_raw(decoder, buffer.baseAddress, buffer.count, 0, 0)
        }
        guard result >= 0 else { throw .recognizer("pocketsphinx could not process the audio") }
    }

    public func endUtterance() throws(VoiceError) -> String {
        guard llmster_ps_end_utt(decoder) >= 0 else { throw .recognizer("pocketsphinx could not end the utterance") }
        var score: Int32 = 0
        guard let hypothesis = llmster_ps_get_hyp(decoder, &score) else { return "" }
        return String(cString: hypothesis).trimmingCharacters(in: .whitespaces)
    }
}
