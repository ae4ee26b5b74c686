import Logging

/// A log handler that takes every secret out of a message (`Redactor`)
/// before another handler writes it: `sluice send`'s messages may carry a
/// lower layer's error or a provider's answer that echoes a credential.
struct RedactingLogHandler: LogHandler {
    var inner: any LogHandler
    let redactor: Redactor

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(redactor.scrub(event.message.description))"
        inner.log(event: event)
    }
}
