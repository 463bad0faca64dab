import Testing
@testable import SearchIndex

/// The stemmer against Martin Porter's published reference vocabulary and output.
@Suite struct PorterStemmerTests {
  /// The first 150 entries of Martin Porter's published vocabulary (voc.txt) with the
  /// reference implementation's output (output.txt), in file order.
  static let referenceVocabularyStart: [(String, String)] = [
    ("a", "a"), ("aaron", "aaron"), ("abaissiez", "abaissiez"),
    ("abandon", "abandon"), ("abandoned", "abandon"), ("abase", "abas"), ("abash", "abash"),
    ("abate", "abat"), ("abated", "abat"), ("abatement", "abat"), ("abatements", "abat"),
    ("abates", "abat"), ("abbess", "abbess"), ("abbey", "abbei"), ("abbeys", "abbei"),
    ("abbominable", "abbomin"), ("abbot", "abbot"), ("abbots", "abbot"), ("abbreviated", "abbrevi"),
    ("abed", "ab"), ("abel", "abel"), ("aberga", "aberga"), ("abergavenny", "abergavenni"),
    ("abet", "abet"), ("abetting", "abet"), ("abhominable", "abhomin"), ("abhor", "abhor"),
    ("abhorr", "abhorr"), ("abhorred", "abhor"), ("abhorring", "abhor"), ("abhors", "abhor"),
    ("abhorson", "abhorson"), ("abide", "abid"), ("abides", "abid"), ("abilities", "abil"),
    ("ability", "abil"), ("abject", "abject"), ("abjectly", "abjectli"), ("abjects", "abject"),
    ("abjur", "abjur"), ("abjure", "abjur"), ("able", "abl"), ("abler", "abler"),
    ("aboard", "aboard"), ("abode", "abod"), ("aboded", "abod"), ("abodements", "abod"),
    ("aboding", "abod"), ("abominable", "abomin"), ("abominably", "abomin"),
    ("abominations", "abomin"), ("abortive", "abort"), ("abortives", "abort"), ("abound", "abound"),
    ("abounding", "abound"), ("about", "about"), ("above", "abov"), ("abr", "abr"),
    ("abraham", "abraham"), ("abram", "abram"), ("abreast", "abreast"), ("abridg", "abridg"),
    ("abridge", "abridg"), ("abridged", "abridg"), ("abridgment", "abridg"), ("abroach", "abroach"),
    ("abroad", "abroad"), ("abrogate", "abrog"), ("abrook", "abrook"), ("abrupt", "abrupt"),
    ("abruption", "abrupt"), ("abruptly", "abruptli"), ("absence", "absenc"), ("absent", "absent"),
    ("absey", "absei"), ("absolute", "absolut"), ("absolutely", "absolut"), ("absolv", "absolv"),
    ("absolver", "absolv"), ("abstains", "abstain"), ("abstemious", "abstemi"),
    ("abstinence", "abstin"), ("abstract", "abstract"), ("absurd", "absurd"),
    ("absyrtus", "absyrtu"), ("abundance", "abund"), ("abundant", "abund"),
    ("abundantly", "abundantli"), ("abus", "abu"), ("abuse", "abus"), ("abused", "abus"),
    ("abuser", "abus"), ("abuses", "abus"), ("abusing", "abus"), ("abutting", "abut"),
    ("aby", "abi"), ("abysm", "abysm"), ("ac", "ac"), ("academe", "academ"), ("academes", "academ"),
    ("accent", "accent"), ("accents", "accent"), ("accept", "accept"), ("acceptable", "accept"),
    ("acceptance", "accept"), ("accepted", "accept"), ("accepts", "accept"), ("access", "access"),
    ("accessary", "accessari"), ("accessible", "access"), ("accidence", "accid"),
    ("accident", "accid"), ("accidental", "accident"), ("accidentally", "accident"),
    ("accidents", "accid"), ("accite", "accit"), ("accited", "accit"), ("accites", "accit"),
    ("acclamations", "acclam"), ("accommodate", "accommod"), ("accommodated", "accommod"),
    ("accommodation", "accommod"), ("accommodations", "accommod"), ("accommodo", "accommodo"),
    ("accompanied", "accompani"), ("accompany", "accompani"), ("accompanying", "accompani"),
    ("accomplices", "accomplic"), ("accomplish", "accomplish"), ("accomplished", "accomplish"),
    ("accomplishing", "accomplish"), ("accomplishment", "accomplish"), ("accompt", "accompt"),
    ("accord", "accord"), ("accordant", "accord"), ("accorded", "accord"),
    ("accordeth", "accordeth"), ("according", "accord"), ("accordingly", "accordingli"),
    ("accords", "accord"), ("accost", "accost"), ("accosted", "accost"), ("account", "account"),
    ("accountant", "account"), ("accounted", "account"), ("accounts", "account"),
    ("accoutred", "accoutr"), ("accoutrement", "accoutr"), ("accoutrements", "accoutr"),
    ("accrue", "accru"),
  ]

  /// Heavily stemmed words from later in the same reference vocabulary and output.
  static let referenceHeavyStems: [(String, String)] = [
    ("impossibilities", "imposs"), ("fortifications", "fortif"), ("bashfulness", "bash"),
    ("communication", "commun"), ("covetousness", "covet"), ("deliciousness", "delici"),
    ("excellencies", "excel"), ("excommunication", "excommun"), ("fearfulness", "fear"),
    ("forgetfulness", "forget"), ("fortification", "fortif"), ("fruitfulness", "fruit"),
    ("impossibility", "imposs"), ("justification", "justif"), ("mollification", "mollif"),
    ("principalities", "princip"), ("prognostication", "prognost"), ("qualification", "qualif"),
    ("thankfulness", "thank"), ("unthankfulness", "unthank"), ("voluptuousness", "voluptu"),
    ("wilfulness", "wil"), ("witnessing", "wit"), ("accusations", "accus"),
    ("achievements", "achiev"), ("adorations", "ador"), ("advancements", "advanc"),
    ("affectations", "affect"), ("affirmatives", "affirm"), ("allegations", "alleg"),
    ("applications", "applic"), ("atonements", "aton"), ("businesses", "busi"),
    ("cogitations", "cogit"), ("commendations", "commend"), ("confirmations", "confirm"),
    ("congregations", "congreg"), ("conjurations", "conjur"), ("consecrations", "consecr"),
    ("considerations", "consider"), ("considerings", "consid"), ("constellation", "constel"),
    ("conversations", "convers"), ("copulatives", "copul"),
  ]

  /// Examples from the brief and Porter's paper whose full-algorithm output is well known.
  static let classicExamples: [(String, String)] = [
    ("caresses", "caress"), ("ponies", "poni"), ("ties", "ti"), ("caress", "caress"), ("cats", "cat"),
    ("feed", "feed"), ("agreed", "agre"), ("plastered", "plaster"), ("bled", "bled"),
    ("motoring", "motor"), ("sing", "sing"), ("hopping", "hop"), ("tanned", "tan"), ("falling", "fall"),
    ("hissing", "hiss"), ("fizzed", "fizz"), ("failing", "fail"), ("filing", "file"),
    ("relational", "relat"), ("conditional", "condit"), ("generalizations", "gener"),
    ("oscillators", "oscil"), ("happy", "happi"), ("sky", "sky"), ("connected", "connect"),
    ("connecting", "connect"), ("connections", "connect"), ("archeology", "archeolog"),
    ("possibly", "possibl"), ("electrical", "electr"), ("controlling", "control"), ("roll", "roll"),
  ]

  @Test(arguments: referenceVocabularyStart + referenceHeavyStems + classicExamples)
  func stemMatchesReferenceOutput(word: String, stem: String) {
    #expect(PorterStemmer.stem(word) == stem)
  }

  @Test func tableHasAtLeast150ReferencePairs() {
    #expect(Self.referenceVocabularyStart.count + Self.referenceHeavyStems.count >= 150)
  }

  @Test func wordsOfOneOrTwoLettersAreLeftAlone() {
    for word in ["a", "is", "as", "us", "ed"] {
      #expect(PorterStemmer.stem(word) == word)
    }
  }

  @Test func wordsThatAreNotLowercaseASCIILettersAreReturnedUnchanged() {
    for word in ["naïve", "cafés", "Running", "RUNNING", "mp3s", "1990s", "", "мосты"] {
      #expect(PorterStemmer.stem(word) == word)
    }
  }

  @Test func degenerateSuffixOnlyWordsDoNotCrash() {
    for word in ["ion", "ies", "ing", "eed", "sses", "ings", "eds", "yyy", "sss"] {
      #expect(PorterStemmer.stem(word).count <= word.count)
    }
    #expect(PorterStemmer.stem("ies") == "i")
  }

  @Test func inPlaceStemmingReturnsTheStemLength() {
    var bytes = Array("generalizations".utf8)
    let length = bytes.withUnsafeMutableBufferPointer { PorterStemmer.stem($0.baseAddress!, count: $0.count) }
    #expect(String(decoding: bytes[..<length], as: UTF8.self) == "gener")
  }
}
