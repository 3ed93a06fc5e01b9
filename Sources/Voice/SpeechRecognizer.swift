/// An on-device speech recognition engine, fed one utterance at a time.
///
/// Implementations own engine handles and are used from one thread at a time.
public protocol SpeechRecognizer: AnyObject {
    /// Starts a new utterance.
    func beginUtterance() throws(VoiceError)
    /// Recognises 16 kHz mono samples of the current utterance.
    func process(_ samples: ArraySlice<Int16>) throws(VoiceError)
    /// Ends the utterance and returns the words heard (empty when none).
    func endUtterance() throws(VoiceError) -> String
}
