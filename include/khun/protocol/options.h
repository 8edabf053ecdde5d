// The engine's options as UCI describes them (spin, check, combo, button, string), each
// declaring what happens when it changes. The dialects only rename and list them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace khun::protocol {

// The outcome of setoption: an error (value ignored), a note (value adjusted), or neither.
struct OptionResult {
    std::optional<std::string> error;
    std::optional<std::string> note;
};

struct EngineOption {
    enum class Type { Spin, Check, Combo, Button, String };
    std::string name;
    Type type;
    std::string defaultValue;
    long long min = 0, max = 0;
    std::vector<std::string> vars;
    std::string value;
    // Runs after `value` took its new form (a button runs it when pressed); `previous` is
    // what it held. An error in `result` puts the previous value back.
    std::function<void(const EngineOption& o, const std::string& previous, OptionResult& result)>
        onChange;
    // Accepted but offered in no dialect's option list (a GUI would read more into it
    // than it does).
    bool hidden = false;
    // The typed copy the engine reads (a spin's number, a check's flag): OptionSet keeps
    // it equal to `value` (from the default when added, on each accepted change, and back
    // with `value` when a change is refused), so no reader parses the text again.
    std::variant<std::monostate, int*, bool*> typed;
};

// "spin", "check", ... as UCI and USI write the type.
[[nodiscard]] const char* option_type_name(EngineOption::Type t);

class OptionSet {
  public:
    void add(EngineOption o);
    [[nodiscard]] const std::vector<EngineOption>& all() const { return opts; }
    // The option named `name` (any case), or nullptr.
    [[nodiscard]] const EngineOption* find(const std::string& name) const;
    // Its value, "" when there is no such option.
    [[nodiscard]] std::string get(const std::string& name) const;
    // Checks `value` against the option's type, stores it and runs its onChange.
    OptionResult set(const std::string& name, const std::string& value);

  private:
    std::vector<EngineOption> opts;
};

} // namespace khun::protocol
