/// A download job's state, as started or polled.
public struct DownloadStatus: Codable, Sendable, Equatable {
    /// Absent when `status` is `already_downloaded`.
    public var jobId: String?
    /// `downloading`, `paused`, `completed`, `failed` or `already_downloaded`.
    public var status: String
    /// Bytes the job downloads in all.
    public var totalSizeBytes: Int64?
    /// Bytes downloaded so far.
    public var downloadedBytes: Int64?
    /// Current download speed.
    public var bytesPerSecond: Double?
    /// ISO 8601 text, as sent.
    public var estimatedCompletion: String?
    /// ISO 8601 text, as sent.
    public var startedAt: String?
    /// ISO 8601 text, as sent.
    public var completedAt: String?

    /// Creates a job state.
    public init(
        jobId: String? = nil, status: String, totalSizeBytes: Int64? = nil, downloadedBytes: Int64? = nil,
        bytesPerSecond: Double? = nil, estimatedCompletion: String? = nil, startedAt: String? = nil,
        completedAt: String? = nil
    ) {
        self.jobId = jobId
        self.status = status
        self.totalSizeBytes = totalSizeBytes
        self.downloadedBytes = downloadedBytes
        self.bytesPerSecond = bytesPerSecond
        self.estimatedCompletion = estimatedCompletion
        self.startedAt = startedAt
        self.completedAt = completedAt
    }

    enum CodingKeys: String, CodingKey {
        case status
        case jobId = "job_id"
        case totalSizeBytes = "total_size_bytes"
        case downloadedBytes = "downloaded_bytes"
        case bytesPerSecond = "bytes_per_second"
        case estimatedCompletion = "estimated_completion"
        case startedAt = "started_at"
        case completedAt = "completed_at"
    }
}
