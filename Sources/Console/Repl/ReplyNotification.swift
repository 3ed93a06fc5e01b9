import Foundation
import Markdown
import SystemSupport
import TerminalMarkdown

/// Tells the user a long reply finished: `notify-send` when present, else OSC 777 and OSC 9 to a full terminal
/// outside Emacs (comint and term.el would show them as text).
enum ReplyNotification {
    /// Posts "MODEL finished" with the start of `text` (Markdown) as plain text, control characters removed.
    static func post(model: String, text: String, environment: [String: String]) {
        let title = UntrustedText.sanitize(model).replacingOccurrences(of: ";", with: ",") + " finished"
        // Notifications show text as it is: the answer as read, not its Markdown.
        let preview = String(UntrustedText.sanitize(PlainText.of(text)).prefix(120))
            .replacingOccurrences(of: ";", with: ",")
        if ExternalProgram.isAvailable("notify-send", environment: environment) {
            // Not waited for: the prompt comes back while notify-send runs, on a thread of its own.
            Task {
                _ = await BlockingThread.run("llmster-notify") {
                    ExternalProgram.runShell("notify-send \"$1\" \"$2\" >/dev/null 2>&1", arguments: [title, preview])
                }
            }
            return
        }
        guard TerminalCapabilities.detect(fd: 1, environment: environment).allowsOperatingSystemCommands else { return }
        StandardStream.output.send("\u{1B}]777;notify;\(title);\(preview)\u{7}\u{1B}]9;\(title): \(preview)\u{7}")
    }
}
