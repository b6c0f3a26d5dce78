// swift-tools-version:6.0
import PackageDescription

// Linux only (README.md, "Where it runs"), which `platforms:` cannot say: it names none rather
// than one vault does not run on.

/// The byte loops in C (search's scans, the object writer's hashing and packing) built with
/// optimization in debug builds too: at -O0 their SIMD intrinsics run ~20x slower, and the test
/// suite, which runs the debug build, searches hundreds of megabytes.
let optimizedInDebugBuilds: [CSetting] = [.unsafeFlags(["-O2"], .when(configuration: .debug))]

let package = Package(
    name: "vault",
    products: [
        .library(name: "VaultCore", targets: ["VaultCore"]),
        // What every front end (the CLI, the MCP server) shares: a session and its workflows.
        .library(name: "VaultKit", targets: ["VaultKit"]),
        .executable(name: "vault", targets: ["vault"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // System libraries, found through pkg-config. Nothing else lives here.
        // libgit2's headers only (no pkgConfig: it would link libgit2): CGit2Loader loads
        // libgit2.so.1.5 when vault first needs it.
        .systemLibrary(name: "CGit2", providers: [.apt(["libgit2-dev"])]),
        // libcurl's headers only: CCurlShims loads libcurl.so.4 when the first request is made.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // OpenSSL's libcrypto, for SHA-1 of the git index (the index checksum).
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // cmark-gfm and its GitHub extensions (tables, strikethrough, autolinks, task lists), for `vault export`.
        .systemLibrary(
            name: "CCmark", pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
        // SQLite, for the search index (a cache outside the vault; FTS5 with the trigram tokenizer).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libgit2 loaded with dlopen on first use; defines the git_* functions vault calls.
        .target(name: "CGit2Loader", dependencies: ["CGit2"], exclude: ["README.md"]),
        // libcurl loaded on first use, and typed wrappers for its variadic calls (Swift cannot make them).
        .target(name: "CCurlShims", dependencies: ["CCurl"], exclude: ["README.md"]),
        // Typed wrappers for libgit2's variadic git_libgit2_opts; libgit2 started without the CA bundle.
        .target(name: "CGitShims", dependencies: ["CGit2", "CGit2Loader"], exclude: ["README.md"]),
        // A write-only loose-object backend for libgit2 (stored trees, fast commits on large folders).
        .target(
            name: "CVaultObjects", dependencies: ["CGit2", "CGit2Loader", "CCrypto"], exclude: ["README.md"],
            cSettings: optimizedInDebugBuilds, linkerSettings: [.linkedLibrary("z"), .linkedLibrary("deflate")]),
        // Models, the file format, dates, the file store. No C imports.
        .target(
            name: "VaultCore",
            dependencies: [.product(name: "Yams", package: "Yams"), "CVaultScan"], exclude: ["README.md"]),
        // The libgit2 wrapper: every change of the vault becomes one commit.
        .target(
            name: "VaultGit", dependencies: ["VaultCore", "CGit2", "CGit2Loader", "CCrypto", "CGitShims", "CVaultObjects"], exclude: ["README.md"]),
        // Sharing: rooms and diary entries as one Markdown, HTML or JSON document.
        .target(name: "VaultExport", dependencies: ["VaultCore", "CCmark"], exclude: ["README.md"]),
        // Chat with OpenAI-compatible servers: libcurl client, event-stream decoder, providers.
        .target(name: "VaultChat", dependencies: ["VaultCore", "CCurl", "CCurlShims"], exclude: ["README.md"]),
        // `vault search`'s listing, opening and stamping of files, relative to open folders.
        .target(name: "CVaultScan", exclude: ["README.md"], cSettings: optimizedInDebugBuilds),
        // `vault search`: the scan (NFC, case folding, every core) and the optional index.
        // Its byte loops run without Swift's run-time exclusivity checks (a third of a scan's time).
        .target(
            name: "VaultSearch", dependencies: ["VaultCore", "CSQLite", "CCrypto", "CVaultScan"], exclude: ["README.md", "Index/README.md"],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),
        // The API every front end shares: `VaultSession` (a vault opened with its history, or
        // read-only), the reading workflows, search with its index policy. Prints nothing.
        .target(
            name: "VaultKit",
            dependencies: ["VaultCore", "VaultGit", "VaultSearch", "VaultChat", "VaultImport", "VaultExport"],
            exclude: ["README.md"]),
        // `vault import`: readers of other tools' exports (ChatGPT, Claude, Claude Code, llm, jrnl, Day One).
        .target(
            name: "VaultImport", dependencies: ["VaultCore", "CCrypto", "CSQLite", "CZlib"], exclude: ["README.md"]),
        .systemLibrary(name: "CZlib"),
        // `vault mcp`: the Model Context Protocol over stdio, written by hand (Sources/VaultMCP/README.md says why).
        .target(
            name: "VaultMCP", dependencies: ["VaultCore", "VaultKit"],
            exclude: ["README.md"]),
        // `vault ui`: the full-screen terminal app, the third front end (its own renderer over termios).
        .target(name: "VaultUI", dependencies: ["VaultCore", "VaultKit"], exclude: ["README.md"]),
        // The command-line interface: one file per command.
        .target(
            name: "VaultCLI",
            dependencies: [
                "VaultCore",
                "VaultKit",
                "VaultMCP",
                "VaultUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], exclude: ["README.md"]),
        // Exports CGitShims' stand-ins for mbedTLS's certificate loaders, so libgit2's calls
        // reach them (a debug build exported neither, and libgit2 parsed the CA bundle on start-up).
        .executableTarget(
            name: "vault", dependencies: ["VaultCLI"], exclude: ["README.md"],
            linkerSettings: [
                .unsafeFlags([
                    "-Xlinker", "--export-dynamic-symbol=mbedtls_x509_crt_parse_file",
                    "-Xlinker", "--export-dynamic-symbol=mbedtls_x509_crt_parse_path",
                ])
            ]),
        // Fuzzing (Fuzz/README.md): the targets, a seeded fuzzer, and `vault-fuzz` (libFuzzer's
        // entry point when built by scripts/fuzz.sh).
        .target(name: "VaultFuzzing", dependencies: ["VaultCore", "VaultChat", "VaultImport", "CSQLite"], path: "Fuzz/VaultFuzzing"),
        .target(name: "CVaultFuzzer", path: "Fuzz/CVaultFuzzer"),
        .executableTarget(name: "vault-fuzz", dependencies: ["VaultFuzzing", "CVaultFuzzer"], path: "Fuzz/vault-fuzz"),
        // Parse throughput on a generated vault (Benchmarks/README.md).
        .executableTarget(name: "vault-bench", dependencies: ["VaultCore"], path: "Benchmarks/vault-bench"),
        // The import readers' throughput, reading only (Benchmarks/README.md).
        .executableTarget(name: "vault-import-bench", dependencies: ["VaultCore", "VaultImport"], path: "Benchmarks/vault-import-bench"),
        // Shared test fixtures: temporary folders, seeded randomness, running the built `vault`.
        .target(name: "VaultTestSupport", dependencies: ["VaultCore"], path: "Tests/VaultTestSupport"),
        .testTarget(name: "VaultCoreTests", dependencies: ["VaultCore", "VaultTestSupport"]),
        .testTarget(name: "VaultGitTests", dependencies: ["VaultCore", "VaultGit", "VaultTestSupport"]),
        // The API the front ends share, through the library alone, checked with `git`.
        .testTarget(
            name: "VaultKitTests",
            dependencies: ["VaultCore", "VaultKit", "VaultGit", "VaultSearch", "VaultChat", "VaultTestSupport"]),
        // Sync between machines: a bare remote and clones, the built `vault`, checked with `git`.
        .testTarget(name: "VaultSyncTests", dependencies: ["VaultCore", "VaultTestSupport"]),
        .testTarget(name: "VaultChatTests", dependencies: ["VaultCore", "VaultChat", "VaultTestSupport"]),
        .testTarget(
            name: "VaultCLITests",
            dependencies: ["VaultCore", "VaultCLI", "VaultTestSupport", "CCurlShims", "CGitShims", "CGit2Loader"]),
        // `vault mcp` driven by the official Python MCP SDK as the client, over a real stdio subprocess.
        .testTarget(name: "VaultMCPTests", dependencies: ["VaultCore", "VaultTestSupport"]),
        // `vault ui`: its terminal layer, and the app on a real terminal (tmux) end to end.
        .testTarget(name: "VaultUITests", dependencies: ["VaultCore", "VaultUI", "VaultTestSupport"]),
        .testTarget(name: "VaultSearchTests", dependencies: ["VaultCore", "VaultSearch", "VaultTestSupport"]),
        .testTarget(name: "VaultImportTests", dependencies: ["VaultCore", "VaultImport", "VaultGit", "VaultTestSupport"]),
        .testTarget(name: "VaultExportTests", dependencies: ["VaultCore", "VaultExport", "VaultTestSupport"]),
        // The fuzz targets over the seed corpus and seeded mutations; every crash found, kept.
        .testTarget(name: "VaultFuzzingTests", dependencies: ["VaultFuzzing", "VaultTestSupport"]),
    ]
)
