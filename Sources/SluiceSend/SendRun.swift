import Foundation
import Logging
import Sluice

/// `sluice send` as one call: the pipeline's destinations with a `send:`
/// block, their finished files under the output root, each delivered to its
/// provider with the ledger kept; the exit code as docs/sending.md lists it.
public enum SendRun {
    public struct Options: Sendable {
        public var pipeline: String
        public var root = "out"
        /// `--endpoint NAME=URL`: a destination's URL instead of the provider's.
        public var endpoints: [String: String] = [:]
        /// `--only NAME`: send only these outputs (a destination's events, `DEST.KIND` a side output); empty: all.
        public var only: Set<String> = []
        public var dryRun = false
        /// `--validate`: GA4 destinations post to the validation endpoint; refused lines go to the send-rejects, nothing is marked sent.
        public var validate = false
        public var watch = false
        /// How often `--watch` looks for new files.
        public var watchInterval: Duration = .seconds(1)
        public var statsPath: String?
        public var metricsPath: String?
        public var progress: Bool?
        public var quiet = false
        var retry = RetryPolicy()
        /// `--request-timeout`: a request's whole deadline, connecting to the answer's last byte.
        public var requestTimeout: Duration = .seconds(60)
        /// `--shutdown-timeout`: after SIGTERM/SIGINT, how long requests in flight may take before they are cut off.
        public var shutdownTimeout: Duration = .seconds(30)
        public var environment: @Sendable (String) -> String? = ConfigReader.processEnvironment

        public init(pipeline: String) { self.pipeline = pipeline }

        /// `--max-retry-time` (default 1h): how long a batch may be retried before sending stops with exit 75.
        public var maxRetryTime: Duration {
            get { retry.maxRetryTime }
            set { retry.maxRetryTime = newValue }
        }
    }

    /// A file set ready to send: a destination's events, or one of its side
    /// outputs (`mixpanel.profiles`), with its settings and the provider's API.
    struct Target: Sendable {
        /// The output's name: the destination's, or `DEST.KIND` for a side output (ledger, stats, `--endpoint`).
        let name: String
        /// The destination's name (`{dest}` of the path template).
        let dest: String
        /// One request at a time, in file order: a side output's profile updates must land in the order
        /// they were made (a later `$set` of a property wins only if it comes later).
        var inOrder = false
        let template: PathTemplate
        let settings: SendSettings
        let api: any ProviderAPI
        let url: String
    }

    /// Runs it; the exit status.
    /// - Parameters:
    ///   - logger: where messages go (one line each, stderr in the CLI); once the secrets are
    ///     read, every message is scrubbed of them first.
    ///   - console: the stderr writer the progress line shares with the logger.
    public static func run(_ options: Options, logger: Logger, console: StderrConsole) async -> Int32 {
        var redactor = Redactor()
        let configuration: PipelineConfiguration
        do {
            configuration = try PipelineConfiguration.load(path: options.pipeline)
        } catch let error as ConfigurationError {
            for line in error.description.split(separator: "\n") { logger.error("\(line)") }
            return ExitStatus.config
        } catch {
            logger.error("\(error)")
            return ExitStatus.config
        }
        let validating = DestinationRegistry.validating
        var targets: [Target] = []
        // Every output that could be sent, for `--only` and `--endpoint` to name.
        var sendable: [String: String] = [:]
        for destination in configuration.destinations where destination.send != nil {
            sendable[destination.name] = destination.type.name
            for side in destination.sideOutputs {
                sendable[SideOutputKind.outputName(destination: destination.name, kind: side.kind.name)] = destination.type.name
            }
        }
        for name in options.only.sorted() where sendable[name] == nil {
            let message = "--only \(name): no destination or side output '\(name)' with a send: block in \(options.pipeline) "
                + "(there are: \(sendable.keys.sorted().joined(separator: ", ")))"
            logger.error("\(message)")
            return ExitStatus.usage
        }
        let selected = { (name: String) in options.only.isEmpty || options.only.contains(name) }
        // An `--endpoint` for what this command does not send is a mistake, said before any credentials are read.
        for name in options.endpoints.keys.sorted() {
            guard let type = sendable[name] else {
                logger.error("--endpoint \(name)=…: no destination or side output '\(name)' with a send: block in \(options.pipeline)")
                return ExitStatus.usage
            }
            let why: String
            if options.validate && (!validating.contains(type) || name.contains(".")) {
                why = "--validate checks only destinations with a validation endpoint (\(validating.sorted().joined(separator: ", "))), "
                    + "and \(name) is \(name.contains(".") ? "a side output" : type)"
            } else if !selected(name) {
                why = "--only leaves it out"
            } else {
                continue
            }
            let message = "--endpoint \(name)=…: \(name) is not sent by this command: \(why)"
            logger.error("\(message)")
            return ExitStatus.usage
        }
        for destination in configuration.destinations {
            guard let send = destination.send else { continue }
            if options.validate && !validating.contains(destination.type.name) { continue }
            // Not sent: its credentials are not needed either.
            let sides = destination.sideOutputs.map { SideOutputKind.outputName(destination: destination.name, kind: $0.kind.name) }
            guard selected(destination.name) || (!options.validate && sides.contains(where: selected)) else { continue }
            // Events written to stdout leave nothing to send but the side outputs' files.
            var eventsTemplate: PathTemplate?
            if case let .files(template) = destination.target { eventsTemplate = template }
            for template in [eventsTemplate].compactMap({ $0 }) + destination.sideOutputs.map(\.template) where template.isAbsolute {
                let message = "destination '\(destination.name)': sluice send reads files under OUT; its paths must be relative "
                    + "templates, not \(template.description)"
                logger.error("\(message)")
                return ExitStatus.config
            }
            let secret: String
            if options.dryRun {
                secret = "dry-run"
            } else {
                switch readSecret(send.credentials, environment: options.environment) {
                case .failure(let failure):
                    logger.error("destination '\(destination.name)': \(failure)")
                    return failure.exitCode
                case .success(let value):
                    secret = value
                }
            }
            guard let delivery = destination.type.delivery else {
                // `validate` refuses a `send:` block on a type without one; a library caller may still build such a destination.
                logger.error("destination '\(destination.name)': sluice send does not deliver to \(destination.type.name)")
                return ExitStatus.config
            }
            switch delivery.events(send, secret, options.validate) {
            case .failure(let failure):
                logger.error("destination '\(destination.name)': \(failure)")
                return failure.exitCode
            case .success(let api):
                if !options.dryRun { redactor.add(secret) }
                if let eventsTemplate, selected(destination.name) {
                    switch api.checkedURL(endpoint: options.endpoints[destination.name]) {
                    case .failure(let failure):
                        logger.error("destination '\(destination.name)': \(failure)")
                        return ExitStatus.usage
                    case .success(let url):
                        targets.append(Target(name: destination.name, dest: destination.name, template: eventsTemplate, settings: send,
                                              api: api, url: url))
                    }
                }
            }
            // The side outputs go to the provider's other endpoints, with the same `send:` block.
            for side in destination.sideOutputs where !options.validate {
                let name = SideOutputKind.outputName(destination: destination.name, kind: side.kind.name)
                guard selected(name), let api = delivery.sideOutputs[side.kind.name]?(send, secret) else { continue }
                targets.append(Target(name: name, dest: destination.name, inOrder: true, template: side.template, settings: send,
                                      api: api, url: api.url(endpoint: options.endpoints[name])))
            }
        }
        for name in options.endpoints.keys.sorted() where !targets.contains(where: { $0.name == name }) {
            // A side output its provider has no API for, or a destination whose events go to stdout.
            logger.error("--endpoint \(name)=…: \(name) has no files sluice send delivers")
            return ExitStatus.usage
        }
        if targets.isEmpty {
            let which = options.validate ? " on a provider with a validation endpoint (\(validating.sorted().joined(separator: ", ")))" : ""
            logger.error("no destination of \(options.pipeline) has a send: block\(which); nothing to send")
            return ExitStatus.config
        }
        if options.watch && !FileManager.default.fileExists(atPath: options.root) {
            // A sidecar may start before the run that writes OUT.
            try? FileManager.default.createDirectory(atPath: options.root, withIntermediateDirectories: true)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.root, isDirectory: &isDirectory), isDirectory.boolValue else {
            logger.error("\(options.root) is not a directory (the OUT sluice run wrote)")
            return ExitStatus.noInput
        }
        let sessionLogger = Logger(label: logger.label) { [redactor] _ in RedactingLogHandler(inner: logger.handler, redactor: redactor) }
        if options.dryRun { return DryRun.print(targets, root: options.root, logger: sessionLogger) }
        return await SendSession(options: options, targets: targets, console: console, logger: sessionLogger,
                                 redactor: redactor).run()
    }

    /// The secret from `credentials_env` (a variable) or `credentials_file` (a regular file, its text without the final newline).
    static func readSecret(_ credentials: SendSettings.Credentials,
                           environment: (String) -> String?) -> Result<String, SendFailure> {
        switch credentials {
        case .environment(let name):
            guard let value = environment(name), !value.isEmpty else {
                return .failure(.configuration("the environment variable \(name) named by credentials_env is not set"))
            }
            return .success(value)
        case .file(let path):
            do {
                let file = try SecretSource.readFile(path)
                let text = String(decoding: file.bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !text.isEmpty else { return .failure(.configuration("credentials_file \(path) is empty")) }
                return .success(text)
            } catch {
                return .failure(.configuration("credentials_file \(path): \(error)"))
            }
        }
    }
}
