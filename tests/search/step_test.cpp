// The step IR on its own: text and JSON forms, the field validator, the layout.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/schedule.h"
#include "search/step.h"

namespace tlp {
namespace {

using nlohmann::json;

struct StepCase {
  std::string label;
  Step step;
  std::string text;
  json js;
};

Step make(StepKind k) { return Step::of(k); }

// One non-trivial example of each of the 12 kinds, with its exact text and JSON.
std::vector<StepCase> all_kind_cases() {
  std::vector<StepCase> cases;
  {
    Step s = make(StepKind::SP);
    s.stage = 3, s.iter = 1, s.extent = 1024, s.factors = {8, 16};
    cases.push_back({"SP", s, "SP(3,1,1024,[8,16])", json::parse(R"(["SP",3,1,1024,[8,16]])")});
  }
  {
    Step s = make(StepKind::FSP);
    s.stage = 4, s.iter = 2, s.src_step = 1, s.n_split = 2;
    cases.push_back({"FSP", s, "FSP(4,2,1,2)", json::parse(R"(["FSP",4,2,1,2])")});
  }
  {
    Step s = make(StepKind::RE);
    s.stage = 2, s.ids = {2, 0, 1};
    cases.push_back({"RE", s, "RE(2,[2,0,1])", json::parse(R"(["RE",2,[2,0,1]])")});
  }
  {
    Step s = make(StepKind::FU);
    s.stage = 5, s.ids = {1, 2, 3};
    cases.push_back({"FU", s, "FU(5,[1,2,3])", json::parse(R"(["FU",5,[1,2,3]])")});
  }
  {
    Step s = make(StepKind::AN);
    s.stage = 2, s.iter = 3, s.annotation = Annotation::Vectorize;
    cases.push_back({"AN", s, "AN(2,3,vectorize)", json::parse(R"(["AN",2,3,"vectorize"])")});
  }
  {
    Step s = make(StepKind::CA);
    s.stage = 3, s.target_stage = 4, s.target_iter = 1;
    cases.push_back({"CA", s, "CA(3,4,1)", json::parse(R"(["CA",3,4,1])")});
  }
  {
    Step s = make(StepKind::CI);
    s.stage = 1;
    cases.push_back({"CI", s, "CI(1)", json::parse(R"(["CI",1])")});
  }
  {
    Step s = make(StepKind::CR);
    s.stage = 7;
    cases.push_back({"CR", s, "CR(7)", json::parse(R"(["CR",7])")});
  }
  {
    Step s = make(StepKind::CHW);
    s.stage = 2, s.scope = MemScope::Local;
    cases.push_back({"CHW", s, "CHW(2,local)", json::parse(R"(["CHW",2,"local"])")});
  }
  {
    Step s = make(StepKind::CHR);
    s.stage = 0, s.target_stage = 2, s.scope = MemScope::Shared;
    cases.push_back({"CHR", s, "CHR(0,2,shared)", json::parse(R"(["CHR",0,2,"shared"])")});
  }
  {
    Step s = make(StepKind::RF);
    s.stage = 2, s.iter = 3, s.factor_iter = 1;
    cases.push_back({"RF", s, "RF(2,3,1)", json::parse(R"(["RF",2,3,1])")});
  }
  {
    Step s = make(StepKind::PR);
    s.stage = 3, s.iter = 0, s.value = 512;
    cases.push_back({"PR", s, "PR(3,0,512)", json::parse(R"(["PR",3,0,512])")});
  }
  return cases;
}

class StepKindRoundTrip : public ::testing::TestWithParam<StepCase> {};

TEST_P(StepKindRoundTrip, ToTextPrintsTheExpectedText) { EXPECT_EQ(GetParam().step.to_text(), GetParam().text); }

TEST_P(StepKindRoundTrip, FromTextParsesBackToTheSameStep) {
  const StepCase &c = GetParam();
  Step parsed = Step::from_text(c.text);
  EXPECT_EQ(parsed, c.step);
  EXPECT_EQ(parsed.kind, c.step.kind);
  EXPECT_EQ(parsed.to_text(), c.text);
}

TEST_P(StepKindRoundTrip, ToJsonPrintsKindThenLayoutFields) {
  const StepCase &c = GetParam();
  EXPECT_EQ(c.step.to_json(), c.js);
  EXPECT_EQ(c.step.to_json().size(), step_layout(c.step.kind).size() + 1);
}

TEST_P(StepKindRoundTrip, FromJsonParsesBackToTheSameStep) {
  const StepCase &c = GetParam();
  Step parsed = Step::from_json(c.js);
  EXPECT_EQ(parsed, c.step);
  EXPECT_EQ(parsed.to_json(), c.js);
  // Through a serialized string too, as records store it.
  EXPECT_EQ(Step::from_json(json::parse(c.js.dump())), c.step);
}

TEST_P(StepKindRoundTrip, TextAndJsonFormsAgree) {
  const StepCase &c = GetParam();
  EXPECT_EQ(Step::from_json(Step::from_text(c.text).to_json()).to_text(), c.text);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, StepKindRoundTrip, ::testing::ValuesIn(all_kind_cases()),
                         [](const ::testing::TestParamInfo<StepCase> &info) { return info.param.label; });

TEST(StepKinds, TheCasesCoverEveryKindOnce) {
  std::set<StepKind> kinds;
  for (const auto &c : all_kind_cases()) kinds.insert(c.step.kind);
  EXPECT_EQ(int(kinds.size()), kNumStepKinds);
}

TEST(StepKinds, NamesRoundTripForEveryKind) {
  const std::vector<std::string> names = {"SP", "FSP", "RE", "FU", "AN", "CA", "CI", "CR", "CHW", "CHR", "RF", "PR"};
  ASSERT_EQ(int(names.size()), kNumStepKinds);
  for (int k = 0; k < kNumStepKinds; ++k) {
    EXPECT_EQ(step_kind_name(static_cast<StepKind>(k)), names[k]);
    EXPECT_EQ(step_kind_from_name(names[k]), static_cast<StepKind>(k));
  }
}

TEST(StepNames, EveryAnnotationRoundTripsThroughTextAndJson) {
  const std::vector<std::pair<Annotation, std::string>> all = {{Annotation::Parallel, "parallel"},
                                                               {Annotation::Vectorize, "vectorize"},
                                                               {Annotation::Unroll, "unroll"},
                                                               {Annotation::GpuBlock, "gpu_block"},
                                                               {Annotation::GpuThread, "gpu_thread"}};
  for (const auto &[a, name] : all) {
    EXPECT_EQ(annotation_name(a), name);
    EXPECT_EQ(annotation_from_name(name), a);
    Step s = Step::of(StepKind::AN);
    s.stage = 1, s.iter = 2, s.annotation = a;
    const std::string text = "AN(1,2," + name + ")";
    EXPECT_EQ(s.to_text(), text);
    EXPECT_EQ(Step::from_text(text), s);
    EXPECT_EQ(Step::from_text(text).annotation, a);
    EXPECT_EQ(Step::from_json(s.to_json()).annotation, a);
    EXPECT_EQ(s.to_json()[3], name);
  }
  EXPECT_EQ(annotation_name(Annotation::None), std::string("none"));
  EXPECT_THROW(annotation_from_name("spin"), ScheduleError);
}

TEST(StepNames, EveryMemScopeRoundTripsThroughTextAndJson) {
  const std::vector<std::pair<MemScope, std::string>> all = {
      {MemScope::Local, "local"}, {MemScope::Shared, "shared"}, {MemScope::Global, "global"}};
  for (const auto &[m, name] : all) {
    EXPECT_EQ(mem_scope_name(m), name);
    EXPECT_EQ(mem_scope_from_name(name), m);
    Step w = Step::of(StepKind::CHW);
    w.stage = 4, w.scope = m;
    EXPECT_EQ(w.to_text(), "CHW(4," + name + ")");
    EXPECT_EQ(Step::from_text(w.to_text()).scope, m);
    EXPECT_EQ(Step::from_json(w.to_json()).scope, m);
    Step r = Step::of(StepKind::CHR);
    r.stage = 1, r.target_stage = 3, r.scope = m;
    EXPECT_EQ(r.to_text(), "CHR(1,3," + name + ")");
    EXPECT_EQ(Step::from_text(r.to_text()).scope, m);
    EXPECT_EQ(Step::from_json(r.to_json()).scope, m);
  }
  EXPECT_THROW(mem_scope_from_name("texture"), ScheduleError);
}

TEST(StepText, SingleElementAndLongListsRoundTrip) {
  for (const std::string text : {"SP(0,0,7,[1])", "SP(12,9,4096,[2,4,8,16])", "RE(1,[0])", "FU(3,[0,1,2,3,4,5])"}) {
    EXPECT_EQ(Step::from_text(text).to_text(), text);
    EXPECT_EQ(Step::from_json(Step::from_text(text).to_json()).to_text(), text);
  }
}

TEST(StepText, WhitespaceIsTolerated) {
  EXPECT_EQ(Step::from_text(" SP( 3 , 1 ,1024, [ 8 , 16 ] ) ").to_text(), "SP(3,1,1024,[8,16])");
  EXPECT_EQ(Step::from_text("AN(2, 3, vectorize)").to_text(), "AN(2,3,vectorize)");
}

TEST(StepEquality, ComparesOnlyTheLayoutFields) {
  Step a = Step::of(StepKind::CI);
  a.stage = 2;
  Step b = a;
  b.iter = 5;  // not in CI's layout
  b.factors = {3};
  EXPECT_EQ(a, b);
  b.stage = 3;
  EXPECT_NE(a, b);
  Step c = Step::of(StepKind::CR);
  c.stage = 2;
  EXPECT_NE(a, c);
}

// ---------------------------------------------------------------------------
// Schedules

TEST(ScheduleForms, TextRoundTrip) {
  const std::string text =
      "CI(1); CHW(2,local); SP(3,0,64,[4,8]); FSP(3,3,2,2); RE(3,[0,3,1,4,2,5,6]); FU(3,[0,1]); "
      "AN(3,0,parallel); CA(2,3,1); CHR(0,2,shared); RF(2,3,1); CR(4); PR(3,0,64)";
  Schedule s = Schedule::from_text(text);
  ASSERT_EQ(s.steps.size(), 12u);
  EXPECT_EQ(s.steps[0].kind, StepKind::CI);
  EXPECT_EQ(s.steps[11].kind, StepKind::PR);
  EXPECT_EQ(s.to_text(), text);
  EXPECT_EQ(Schedule::from_text(s.to_text()), s);
}

TEST(ScheduleForms, JsonRoundTrip) {
  Schedule s = Schedule::from_text("SP(2,0,64,[4,8]); AN(2,3,vectorize); CHW(2,global)");
  json j = s.to_json();
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0], json::parse(R"(["SP",2,0,64,[4,8]])"));
  EXPECT_EQ(j[1], json::parse(R"(["AN",2,3,"vectorize"])"));
  EXPECT_EQ(j[2], json::parse(R"(["CHW",2,"global"])"));
  EXPECT_EQ(Schedule::from_json(j), s);
  EXPECT_EQ(Schedule::from_json(json::parse(j.dump())).to_text(), s.to_text());
}

TEST(ScheduleForms, EmptyScheduleIsEmptyTextAndEmptyArray) {
  Schedule empty;
  EXPECT_EQ(empty.to_text(), "");
  EXPECT_TRUE(Schedule::from_text("").steps.empty());
  EXPECT_TRUE(Schedule::from_text("  ").steps.empty());
  EXPECT_EQ(empty.to_json(), json::array());
  EXPECT_TRUE(Schedule::from_json(json::array()).steps.empty());
}

TEST(ScheduleForms, FromTextToleratesSpacesAndATrailingSeparator) {
  Schedule s = Schedule::from_text("CI(1) ;CR(2);   PR(3,0,16);");
  EXPECT_EQ(s.to_text(), "CI(1); CR(2); PR(3,0,16)");
}

TEST(ScheduleForms, ErrorsNameTheFailingStepIndexAndText) {
  try {
    Schedule::from_text("CI(1); SP(2,0,64,[])");
    FAIL() << "expected a ScheduleError";
  } catch (const ScheduleError &e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("schedule step 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("SP(2,0,64,[])"), std::string::npos) << msg;
  }
  try {
    Schedule::from_json(json::parse(R"([["CI",1],["FU",2,[0]]])"));
    FAIL() << "expected a ScheduleError";
  } catch (const ScheduleError &e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("schedule step 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("FU(2,[0])"), std::string::npos) << msg;
  }
  EXPECT_THROW(Schedule::from_json(json::object()), ScheduleError);
}

// ---------------------------------------------------------------------------
// Rejections of the text form. Each message must name the step's text.

std::string text_error(const std::string &text) {
  try {
    Step s = Step::from_text(text);
    ADD_FAILURE() << "'" << text << "' parsed as " << s.to_text();
  } catch (const ScheduleError &e) {
    return e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << "'" << text << "' threw a non-ScheduleError: " << e.what();
  }
  return "";
}

void expect_text_rejected(const std::string &text, const std::string &reason = "") {
  const std::string msg = text_error(text);
  EXPECT_NE(msg.find(text), std::string::npos) << "message does not name '" << text << "': " << msg;
  if (!reason.empty()) EXPECT_NE(msg.find(reason), std::string::npos) << "for '" << text << "': " << msg;
}

TEST(StepFromText, RejectsUnknownKindListingTheKnownKinds) {
  const std::string msg = text_error("XY(1,2)");
  EXPECT_NE(msg.find("XY"), std::string::npos) << msg;
  EXPECT_NE(msg.find("SP FSP RE FU AN CA CI CR CHW CHR RF PR"), std::string::npos) << msg;
  EXPECT_FALSE(text_error("sp(1,0,4,[2])").empty());  // kinds are case-sensitive
}

TEST(StepFromText, UnknownKindErrorNamesTheStepText) { expect_text_rejected("XY(1,2)"); }

TEST(StepFromText, RejectsWrongFieldCount) {
  expect_text_rejected("SP(2,0,64)", "expected ','");
  expect_text_rejected("CI(1,2)", "expected ')'");
  expect_text_rejected("CA(3,4)");
  expect_text_rejected("AN(2,3)");
  expect_text_rejected("PR(3,0,64,1)");
}

TEST(StepFromText, RejectsNonIntegers) {
  expect_text_rejected("CI(x)", "not an integer");
  expect_text_rejected("SP(2,a,64,[4])", "not an integer");
  expect_text_rejected("SP(2,0,64,[4,b])", "not an integer");
  expect_text_rejected("PR(3,0,1e3)", "not an integer");
  expect_text_rejected("CI(1.5)");
  expect_text_rejected("CI()");
}

TEST(StepFromText, RejectsNegativeIndices) {
  expect_text_rejected("CI(-1)", "negative");
  expect_text_rejected("SP(2,-1,64,[4])", "negative");
  expect_text_rejected("CA(3,-4,1)", "negative");
  expect_text_rejected("RE(2,[0,-1])", ">= 0");
}

TEST(StepFromText, RejectsEmptyLists) {
  expect_text_rejected("SP(2,0,64,[])", "empty");
  expect_text_rejected("RE(2,[])", "empty");
  expect_text_rejected("FU(2,[])", "empty");
}

TEST(StepFromText, RejectsFactorZero) {
  expect_text_rejected("SP(2,0,64,[4,0])", ">= 1");
  expect_text_rejected("SP(2,0,64,[0])", ">= 1");
}

TEST(StepFromText, RejectsFuseOfOneLoop) { expect_text_rejected("FU(2,[1])", "at least two"); }

TEST(StepFromText, RejectsAnnotationNone) { expect_text_rejected("AN(2,0,none)", "none"); }

TEST(StepFromText, RejectsTrailingJunk) {
  expect_text_rejected("CI(1)x", "after ')'");
  expect_text_rejected("CI(1) CR(2)", "after ')'");
  expect_text_rejected("SP(2,0,64,[4]))");
}

TEST(StepFromText, RejectsOtherFieldRules) {
  expect_text_rejected("FSP(2,0,0,0)", "n_split");
  expect_text_rejected("CA(2,2,0)", "own");
}

TEST(StepFromText, RejectsUnknownAnnotationAndScopeNames) {
  EXPECT_FALSE(text_error("AN(2,0,spin)").empty());
  EXPECT_FALSE(text_error("CHW(2,texture)").empty());
  EXPECT_FALSE(text_error("CHW(2,1)").empty());
}

TEST(StepFromJson, RejectsMalformedArrays) {
  EXPECT_THROW(Step::from_json(json::parse(R"({"kind":"SP"})")), ScheduleError);
  EXPECT_THROW(Step::from_json(json::array()), ScheduleError);
  EXPECT_THROW(Step::from_json(json::parse(R"([3,1])")), ScheduleError);
  EXPECT_THROW(Step::from_json(json::parse(R"(["XY",1])")), ScheduleError);
  EXPECT_THROW(Step::from_json(json::parse(R"(["SP",2,0,64])")), ScheduleError);         // field count
  EXPECT_THROW(Step::from_json(json::parse(R"(["CI",1,2])")), ScheduleError);            // field count
  EXPECT_THROW(Step::from_json(json::parse(R"(["CI","1"])")), ScheduleError);            // not an integer
  EXPECT_THROW(Step::from_json(json::parse(R"(["CI",1.5])")), ScheduleError);            // not an integer
  EXPECT_THROW(Step::from_json(json::parse(R"(["SP",2,0,64,4])")), ScheduleError);       // not a list
  EXPECT_THROW(Step::from_json(json::parse(R"(["SP",2,0,64,[4,"8"]])")), ScheduleError);  // list of non-integers
  EXPECT_THROW(Step::from_json(json::parse(R"(["SP",2,0,64,[]])")), ScheduleError);      // empty list
  EXPECT_THROW(Step::from_json(json::parse(R"(["SP",2,0,64,[0]])")), ScheduleError);     // factor 0
  EXPECT_THROW(Step::from_json(json::parse(R"(["CI",-1])")), ScheduleError);             // negative
  EXPECT_THROW(Step::from_json(json::parse(R"(["AN",2,0,2])")), ScheduleError);          // annotation by number
  EXPECT_THROW(Step::from_json(json::parse(R"(["AN",2,0,"none"])")), ScheduleError);
  EXPECT_THROW(Step::from_json(json::parse(R"(["FU",2,[1]])")), ScheduleError);
}

TEST(StepValidate, ChecksFieldsOfHandBuiltSteps) {
  Step s = Step::of(StepKind::SP);
  s.stage = 2, s.iter = 0, s.extent = 64, s.factors = {4, 8};
  EXPECT_NO_THROW(s.validate_fields());
  s.factors = {4, 0};
  try {
    s.validate_fields();
    FAIL() << "expected a ScheduleError";
  } catch (const ScheduleError &e) {
    EXPECT_NE(std::string(e.what()).find("SP(2,0,64,[4,0])"), std::string::npos) << e.what();
  }
  s.factors = {4};
  s.extent = -1;
  EXPECT_THROW(s.validate_fields(), ScheduleError);
}

// ---------------------------------------------------------------------------
// The layout and its numeric view

TEST(StepLayout, KindsHaveTheDocumentedFieldOrder) {
  using F = StepField;
  EXPECT_EQ(step_layout(StepKind::SP), (std::vector<F>{F::Stage, F::Iter, F::Extent, F::Factors}));
  EXPECT_EQ(step_layout(StepKind::FSP), (std::vector<F>{F::Stage, F::Iter, F::SrcStep, F::NSplit}));
  EXPECT_EQ(step_layout(StepKind::RE), (std::vector<F>{F::Stage, F::Ids}));
  EXPECT_EQ(step_layout(StepKind::FU), (std::vector<F>{F::Stage, F::Ids}));
  EXPECT_EQ(step_layout(StepKind::AN), (std::vector<F>{F::Stage, F::Iter, F::Annotation}));
  EXPECT_EQ(step_layout(StepKind::CA), (std::vector<F>{F::Stage, F::TargetStage, F::TargetIter}));
  EXPECT_EQ(step_layout(StepKind::CI), (std::vector<F>{F::Stage}));
  EXPECT_EQ(step_layout(StepKind::CR), (std::vector<F>{F::Stage}));
  EXPECT_EQ(step_layout(StepKind::CHW), (std::vector<F>{F::Stage, F::Scope}));
  EXPECT_EQ(step_layout(StepKind::CHR), (std::vector<F>{F::Stage, F::TargetStage, F::Scope}));
  EXPECT_EQ(step_layout(StepKind::RF), (std::vector<F>{F::Stage, F::Iter, F::FactorIter}));
  EXPECT_EQ(step_layout(StepKind::PR), (std::vector<F>{F::Stage, F::Iter, F::Value}));
}

TEST(StepNumericFields, SplitIsStageIterExtentThenFactors) {
  EXPECT_EQ(step_numeric_fields(Step::from_text("SP(3,1,1024,[8,16])")), (std::vector<double>{3, 1, 1024, 8, 16}));
  EXPECT_EQ(step_numeric_fields(Step::from_text("SP(2,0,64,[4,8])")), (std::vector<double>{2, 0, 64, 4, 8}));
}

TEST(StepNumericFields, AnnotationIsStageIterThenEnumValue) {
  EXPECT_EQ(step_numeric_fields(Step::from_text("AN(2,3,vectorize)")), (std::vector<double>{2, 3, 2}));
  EXPECT_EQ(step_numeric_fields(Step::from_text("AN(5,0,parallel)")), (std::vector<double>{5, 0, 1}));
  EXPECT_EQ(step_numeric_fields(Step::from_text("AN(1,4,gpu_thread)")), (std::vector<double>{1, 4, 5}));
}

TEST(StepNumericFields, OtherKindsFollowTheirLayout) {
  EXPECT_EQ(step_numeric_fields(Step::from_text("FSP(4,2,1,2)")), (std::vector<double>{4, 2, 1, 2}));
  EXPECT_EQ(step_numeric_fields(Step::from_text("RE(2,[2,0,1])")), (std::vector<double>{2, 2, 0, 1}));
  EXPECT_EQ(step_numeric_fields(Step::from_text("CHR(0,2,shared)")), (std::vector<double>{0, 2, 1}));
  EXPECT_EQ(step_numeric_fields(Step::from_text("CHW(2,global)")), (std::vector<double>{2, 2}));
  EXPECT_EQ(step_numeric_fields(Step::from_text("PR(3,0,512)")), (std::vector<double>{3, 0, 512}));
}

TEST(StepNumericFields, CountIsLayoutSizePlusListElementsForEveryKind) {
  for (const auto &c : all_kind_cases()) {
    size_t expected = 0;
    for (StepField f : step_layout(c.step.kind)) {
      if (f == StepField::Factors) expected += c.step.factors.size();
      else if (f == StepField::Ids) expected += c.step.ids.size();
      else expected += 1;
    }
    EXPECT_EQ(step_numeric_fields(c.step).size(), expected) << c.text;
    // The numeric view is the JSON form with names replaced by their enum values.
    std::vector<double> from_json;
    const json j = c.step.to_json();
    for (size_t i = 1; i < j.size(); ++i) {
      if (j[i].is_array())
        for (const auto &e : j[i]) from_json.push_back(e.get<double>());
      else if (j[i].is_string())
        from_json.push_back(c.step.kind == StepKind::AN ? double(int(annotation_from_name(j[i].get<std::string>())))
                                                        : double(int(mem_scope_from_name(j[i].get<std::string>()))));
      else
        from_json.push_back(j[i].get<double>());
    }
    EXPECT_EQ(step_numeric_fields(c.step), from_json) << c.text;
  }
}

}  // namespace
}  // namespace tlp
