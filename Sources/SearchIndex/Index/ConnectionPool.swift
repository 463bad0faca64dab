import Foundation

/// Hands out SQLite connections to one borrower at a time.
///
/// `@unchecked Sendable` is justified the way sqlite-nio justifies its handle box: a
/// `Connection` is opened in multi-thread mode (`SQLITE_OPEN_NOMUTEX`), which is safe as long
/// as no two threads use one connection at the same time; the pool guarantees that by keeping
/// idle connections behind a lock and lending each to exactly one closure. Writers share a
/// single connection behind its own lock (SQLite allows one writer at a time anyway); readers
/// get their own connections, so in WAL mode they never wait for a writer.
final class ConnectionPool: @unchecked Sendable {
  private let lock = NSLock()
  private var idle: [Connection] = []
  private let writerLock = NSLock()
  private let writer: Connection
  private let makeReader: @Sendable () throws(DatabaseError) -> Connection
  /// Keep at most this many idle readers.
  private let maximumIdle = 4

  init(writer: Connection, makeReader: @escaping @Sendable () throws(DatabaseError) -> Connection) {
    self.writer = writer
    self.makeReader = makeReader
  }

  /// Runs `body` with the writer connection, serialised with every other writer.
  func withWriter<T>(_ body: (Connection) throws -> T) rethrows -> T {
    writerLock.lock()
    defer { writerLock.unlock() }
    return try body(writer)
  }

  /// Runs `body` with a reader connection that no one else uses meanwhile.
  func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
    lock.lock()
    let pooled = idle.popLast()
    lock.unlock()
    let connection: Connection
    if let pooled { connection = pooled } else { connection = try makeReader() }
    defer {
      lock.lock()
      if idle.count < maximumIdle { idle.append(connection) }
      lock.unlock()
    }
    return try body(connection)
  }
}
