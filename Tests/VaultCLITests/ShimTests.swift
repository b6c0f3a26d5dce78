import CGit2Loader
import CVaultShims
import Testing

/// The C shim compiles, loads libgit2 and libcurl, and passes arguments through.
@Suite struct ShimTests {
    @Test func curlOptionsReachLibcurl() {
        #expect(cvault_curl_load() == nil)
        let handle = cvault_curl_easy_init()
        #expect(handle != nil)
        defer { cvault_curl_easy_cleanup(handle) }
        #expect(cvault_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, 5) == CURLE_OK)
        #expect(cvault_curl_setopt_string(handle, CURLOPT_URL, "http://127.0.0.1:9/") == CURLE_OK)
        // A string where libcurl expects a number of a range it checks: rejected, so the call really reached it.
        #expect(cvault_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, 9999) != CURLE_OK)
    }

    /// libgit2 is not linked: it is loaded on demand, and its functions reached through
    /// CGit2Loader's trampolines of the same names (which must not call themselves).
    @Test func libgit2IsLoadedAndReachedThroughTrampolines() {
        #expect(cvault_git2_load() == nil)
        #expect(cvault_git2_library() != nil)
        var (major, minor, revision): (Int32, Int32, Int32) = (0, 0, 0)
        #expect(git_libgit2_version(&major, &minor, &revision) == 0)
        #expect("\(major).\(minor)" == LIBGIT2_SOVERSION)
    }

    @Test func libgit2OptionsReachLibgit2() {
        #expect(git_libgit2_init() > 0)
        defer { git_libgit2_shutdown() }
        #expect(cvault_git_set_strict_object_creation(1) == 0)
        #expect(cvault_git_set_fsync_gitdir(1) == 0)
    }

    /// libgit2 starts without parsing the TLS certificates, and can still load them later
    /// (through mbedTLS itself: the executable's stand-ins pass the call on).
    @Test func libgit2StartsWithoutCertificatesAndCanLoadThem() {
        #expect(cvault_git_init() > 0)
        defer { git_libgit2_shutdown() }
        if cvault_git_certificates_skipped() != 0 {
            #expect(cvault_git_load_certificates() == 0)
        }
    }
}
