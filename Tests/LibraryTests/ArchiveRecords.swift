import Foundation

@testable import Library

/// An unencrypted archive as its list of records, so a test can alter one and write a well-formed (checksummed) file.
struct ArchiveRecords {
    var kind: ArchiveKind
    var records: [(type: RecordType, payload: [UInt8])]

    /// Reads every record of the unencrypted archive at `path`.
    init(kind: ArchiveKind, path: String) throws {
        self.kind = kind
        let file = try OpenFile(reading: path)
        let reader = try ArchiveReader(
            kind: kind, source: ByteSource(descriptor: file.descriptor, name: path), name: path, password: { nil })
        records = []
        while let (type, payload) = try reader.next(limit: { _ in .max }) { records.append((type, payload)) }
    }

    /// Writes the records as a complete archive, with a checksum that matches them.
    func write(to path: String) throws {
        try writeOutput(to: path) { sink in
            let writer = try ArchiveWriter(kind: kind, sink: sink, password: nil, limits: .interactive)
            for record in records { try writer.record(record.type, record.payload) }
            try writer.finish()
        }
    }

    /// The index of the first record of `type`.
    func first(_ type: RecordType) -> Int? { records.firstIndex { $0.type == type } }

    /// Replaces the JSON record at `index` with `change` applied to its decoded form.
    mutating func editJSON(at index: Int, _ change: (inout Any) -> Void) throws {
        var value = try JSONSerialization.jsonObject(with: Data(records[index].payload), options: [.fragmentsAllowed])
        change(&value)
        records[index].payload = Array(try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]))
    }
}

/// One step into nested JSON.
enum JSONPathStep: CustomStringConvertible {
    case key(String)
    case index(Int)

    var description: String {
        switch self {
        case .key(let key): return "." + key
        case .index(let index): return "[\(index)]"
        }
    }

    /// The paths of every number and string leaf in `value`.
    static func leaves(of value: Any, under path: [JSONPathStep] = []) -> [[JSONPathStep]] {
        if let object = value as? [String: Any] {
            return object.keys.sorted().flatMap { leaves(of: object[$0]!, under: path + [.key($0)]) }
        }
        if let array = value as? [Any] {
            return array.indices.flatMap { leaves(of: array[$0], under: path + [.index($0)]) }
        }
        return value is NSNull ? [] : [path]
    }

    /// `value` with the member at `path` (object keys and array indexes) replaced by `newValue`.
    static func setting(_ path: [JSONPathStep], to newValue: Any, in value: Any) -> Any {
        guard let step = path.first else { return newValue }
        switch step {
        case .key(let key):
            var object = value as? [String: Any] ?? [:]
            object[key] = setting(Array(path.dropFirst()), to: newValue, in: object[key] ?? NSNull())
            return object
        case .index(let index):
            var array = value as? [Any] ?? []
            guard array.indices.contains(index) else { return array }
            array[index] = setting(Array(path.dropFirst()), to: newValue, in: array[index])
            return array
        }
    }
}
