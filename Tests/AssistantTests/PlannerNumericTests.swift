import Assistant
import Foundation
import QueryEngine
import SearchlightTestSupport
import Testing

/// Numeric phrases on numeric attributes.
@Suite struct PlannerNumericTests {
  func dsl(_ question: String) throws -> String { try PlannerSupport.plan(question).dsl }

  @Test func ratings() throws {
    let plan = try PlannerSupport.plan("which trails are rated 4.5 or more in Oregon")
    #expect(plan.dsl == #"search contentType == "trail" && stateOrProvince == "Oregon"cd && rating >= 4.5 | sort rating desc"#)
    #expect(plan.notes.contains("\u{201C}rated 4.5 or more\u{201D} -> rating >= 4.5"))
    let ids = try PlannerSupport.ids(plan.dsl)
    #expect(!ids.isEmpty && ids.contains("trail-14"))
    #expect(try dsl("4+ star trails in Utah").contains("rating >= 4"))
    #expect(try dsl("trails with a rating above 4.7").contains("rating > 4.7"))
    #expect(try dsl("trails rated at least 4").contains("rating >= 4"))
    #expect(try dsl("notes rated 5").contains("rating == 5"))
  }

  @Test func distancesDurationsAndElevation() throws {
    #expect(try dsl("trails under 5 km").contains("distance < 5"))
    #expect(try dsl("hikes shorter than 3km").contains("distance < 3"))
    #expect(try dsl("hikes longer than 10 miles").contains("distance > 16.09344"))
    #expect(try dsl("trails between 2 and 8 km").contains("InRange(distance, 2, 8)"))
    #expect(try dsl("hikes under 2 hours").contains("duration < 7200"))
    #expect(try dsl("trails with at least 1000 m of elevation gain") == #"search contentType == "trail" && elevationGain >= 1000 | sort elevationGain desc"#)
    #expect(try dsl("hikes of 5 km or less").contains("distance <= 5"))
    // Sizes, in the stored unit: `fileSize`, or the one numeric attribute named "…size".
    #expect(try dsl("notes smaller than 2000") == #"search contentType == "note" && fileSize < 2000 | sort fileSize asc"#)
    // A unit of bytes measures the size: KB, MB, GB in powers of 1000, KiB, MiB in 1024.
    #expect(try dsl("notes larger than 0.5 KB") == #"search contentType == "note" && fileSize > 500 | sort fileSize desc"#)
    #expect(try dsl("notes between 0.5 and 0.8 kb").contains("InRange(fileSize, 500, 800)"))
    // A word for items in general names every item a numeric phrase measures.
    #expect(try dsl("files under 2 MiB") == "search fileSize < 2097152 | sort fileSize asc")
  }

  @Test func numbersWithoutAnAttributeStayWords() throws {
    // A year, a quarter, a count of results: no numeric filter.
    #expect(try !dsl("Q3 budget review").contains(" < ") )
    #expect(try dsl("top 5 trails") == #"search contentType == "trail" | sort rating desc | limit 5"#)
    #expect(try !dsl("What is my flight number to Zürich?").contains("=="))
  }

  @Test func everyNumericPlanRuns() throws {
    for question in [
      "trails under 5 km", "hikes longer than 10 miles", "trails between 2 and 8 km", "hikes under 2 hours", "4+ star trails",
      "notes smaller than 2000", "notes larger than 0.5 KB", "files under 2 MiB",
    ] {
      let plan = try PlannerSupport.plan(question)
      #expect(try !PlannerSupport.ids(plan.dsl).isEmpty, "\(question): \(plan.dsl)")
    }
  }
}
