@testable import Sluice
import Testing

@Suite struct FormEncodingTests {
    @Test func formEncodingEscapesEverythingButLettersDigitsAndStarDashDotUnderscore() {
        #expect(String(decoding: FormEncoding.body([("api_key", Array("k y".utf8)), ("m", Array("[{\"é\":1}]&=+~*-._".utf8))]),
                       as: UTF8.self)
            == "api_key=k%20y&m=%5B%7B%22%C3%A9%22%3A1%7D%5D%26%3D%2B%7E*-._")
        #expect(FormEncoding.encodedCount(Array("a b*".utf8)) == 6)
    }
}
