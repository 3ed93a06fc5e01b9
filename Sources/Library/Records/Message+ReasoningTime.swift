import Foundation

extension Message {
    /// How long the model reasoned, from the saved stats: its reasoning tokens at the reply's generation speed;
    /// nil without reasoning or without both figures.
    ///
    /// The library keeps no clock reading of the reasoning, so every face shows a reopened reply's reasoning time
    /// from this one estimate (a live reply shows the engine's measurement instead).
    public var reasoningSeconds: Double? {
        guard !reasoning.isEmpty, let statsJSON,
            let stats = try? JSONSerialization.jsonObject(with: Data(statsJSON.utf8)) as? [String: Any],
            let tokens = (stats["reasoning_output_tokens"] as? NSNumber)?.doubleValue,
            let rate = (stats["tokens_per_second"] as? NSNumber)?.doubleValue,
            tokens > 0, rate > 0, tokens.isFinite, rate.isFinite
        else { return nil }
        return tokens / rate
    }

    /// The time that labels a reasoning part of `timeline` (this message's): `reasoningSeconds` when the reasoning
    /// is that one part, nil when there are several (the time covers them all, so it belongs to none of them).
    public func reasoningPartSeconds(in timeline: [ReplyTimelinePart]) -> Double? {
        timeline.count { if case .reasoning = $0 { true } else { false } } == 1 ? reasoningSeconds : nil
    }
}
