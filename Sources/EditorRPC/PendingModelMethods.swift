import Chat
import LMStudio

/// `models/selectPending`: the model of a chat whose first message is not sent yet (it has no conversation), chosen
/// under the load policy as `models/select` chooses a conversation's.
///
/// `previous` is the chat's earlier choice (else the default model counts as the previous one): its instances are
/// unloaded unless the policy keeps them, and the model is loaded when no instance serves it. Nothing is saved; the
/// chat sends `model` with its first message.
enum PendingModelMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("models/selectPending") { context, params in
            let model = try params.string("model")
            let previous = try params.optionalString("previous")
            let selection = try await context.session.selectModel(model, conversationId: nil, pending: previous) {
                step in
                context.notify(
                    "models/progress", ModelMethods.progress(step, requestId: context.id, conversationId: nil))
            }
            return .object([
                "model": .string(selection.model),
                "unloaded": .array(selection.unloaded.map(JSONValue.string)),
                "loaded": selection.load.map { .string($0.instanceId) } ?? .null,
                "loadTimeSeconds": selection.load?.loadTimeSeconds.map(JSONValue.number) ?? .null,
                "instanceId": selection.instanceId.map(JSONValue.string) ?? .null
            ])
        }
    }
}
