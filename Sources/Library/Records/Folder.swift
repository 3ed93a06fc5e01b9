/// A folder of conversations; folders nest, and siblings are ordered by `position`.
public struct Folder: Equatable, Hashable, Sendable, Codable {
    /// The folder's row id.
    public var id: Int64
    /// Unique among its siblings, compared case-insensitively; never contains "/".
    public var name: String
    /// Nil for a top-level folder.
    public var parentId: Int64?
    /// 0-based order among its siblings.
    public var position: Int

    /// Creates a value from its fields.
    public init(id: Int64, name: String, parentId: Int64?, position: Int) {
        self.id = id
        self.name = name
        self.parentId = parentId
        self.position = position
    }
}
