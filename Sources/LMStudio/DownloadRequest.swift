/// The body of `POST /api/v1/models/download`.
public struct DownloadRequest: Codable, Sendable, Equatable {
    /// A catalog id or a Hugging Face URL.
    public var model: String
    /// The quantization to fetch, e.g. `Q4_K_M`; the server picks when nil.
    public var quantization: String?

    /// Creates a download request.
    public init(model: String, quantization: String? = nil) {
        self.model = model
        self.quantization = quantization
    }
}
