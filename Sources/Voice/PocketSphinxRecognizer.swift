import Foundation
internal import CPocketSphinx

/// Speech recognition with CMU pocketsphinx, entirely on this machine.
public final class PocketSphinxRecognizer: SpeechRecognizer {
    private let config: OpaquePointer
    private let decoder: OpaquePointer

    /// Loads `model` (about a second for the English model); throws when the engine refuses it.
    public init(model: PocketSphinxModel) throws(VoiceError) {
        llmster_ps_silence_log()
        guard let config = llmster_ps_config(model.acousticModel, model.languageModel, model.dictionary) else {
            throw .recognizer("pocketsphinx rejected the model in \(model.directory)")
        }
        guard let decoder = ps_init(config) else {
            cmd_ln_free_r(config)
            throw .recognizer("pocketsphinx could not load the model in \(model.directory)")
        }
        self.config = config
        self.decoder = decoder
    }

    deinit {
        ps_free(decoder)
        cmd_ln_free_r(config)
    }

    public func beginUtterance() throws(VoiceError) {
        guard ps_start_utt(decoder) >= 0 else { throw .recognizer("pocketsphinx could not start an utterance") }
    }

    public func process(_ samples: ArraySlice<Int16>) throws(VoiceError) {
        let result = samples.withUnsafeBufferPointer { buffer in
            ps_process_raw(decoder, buffer.baseAddress, buffer.count, 0, 0)
        }
        guard result >= 0 else { throw .recognizer("pocketsphinx could not process the audio") }
    }

    public func endUtterance() throws(VoiceError) -> String {
        guard ps_end_utt(decoder) >= 0 else { throw .recognizer("pocketsphinx could not end the utterance") }
        var score: Int32 = 0
        guard let hypothesis = ps_get_hyp(decoder, &score) else { return "" }
        return String(cString: hypothesis).trimmingCharacters(in: .whitespaces)
    }
}
