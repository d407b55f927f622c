/// Whether a shared cache may store a response (RFC 9111 §3, §3.5): the one rule of what the remote
/// cache tier receives.
extension StoredResponse {
    /// A shared cache may keep this response, given whether the request that fetched it carried
    /// credentials (URL userinfo, `-u`, a netrc file, a cookie, or any header of its own: an API key
    /// or a token may have any name). Never: `private` in any form (`private`, `private="field"`), `no-store`, a response
    /// that is not storable at all; a credentialed request's response only when it says `public`
    /// (stricter than §3.5, which also accepts `s-maxage` and `must-revalidate`: a credential
    /// leaves this machine's cache only on the origin's explicit word).
    public func mayBeStoredByASharedCache(credentialed: Bool) -> Bool {
        let cc = CacheControl(headers: headers)
        if cc.has("private") || cc.has("no-store") { return false }
        guard freshness.storable else { return false }
        if credentialed && !cc.has("public") { return false }
        return true
    }
}

extension CacheEntry {
    /// What a shared cache may receive: only entries of http(s) responses (files and data: URLs
    /// never leave the machine; nor does an entry without its stored response, which cannot be judged).
    func mayBeShared(credentialed: Bool) -> Bool {
        response?.mayBeStoredByASharedCache(credentialed: credentialed) ?? false
    }
}
