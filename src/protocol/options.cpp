#include "khun/protocol/options.h"

#include "khun/protocol/protocol.h"

#include <algorithm>

namespace khun::protocol {

using protocol::lower;

const char* option_type_name(EngineOption::Type t) {
    switch (t) {
    case EngineOption::Type::Spin: return "spin";
    case EngineOption::Type::Check: return "check";
    case EngineOption::Type::Combo: return "combo";
    case EngineOption::Type::Button: return "button";
    case EngineOption::Type::String: return "string";
    }
    return "string";
}

void OptionSet::add(EngineOption o) {
    o.value = o.defaultValue;
    opts.push_back(std::move(o));
}

const EngineOption* OptionSet::find(const std::string& name) const {
    const std::string key = lower(name);
    for (const EngineOption& o : opts)
        if (lower(o.name) == key) return &o;
    return nullptr;
}

std::string OptionSet::get(const std::string& name) const {
    const EngineOption* o = find(name);
    return o ? o->value : "";
}

namespace {

// The value `value` stands for in option `o`, or an error (a note when it was adjusted).
std::optional<std::string> normalise(const EngineOption& o, const std::string& value,
                                     OptionResult& r) {
    switch (o.type) {
    case EngineOption::Type::Spin: {
        // Past 18 characters a value is no number a GUI means: refused, not clamped.
        auto n = value.size() <= 18 ? protocol::number(value, o.min, o.max) : std::nullopt;
        if (!n) {
            r.error = "option '" + o.name + "' needs a number from " + std::to_string(o.min) +
                      " to " + std::to_string(o.max) + ", not '" + value + "'";
            return std::nullopt;
        }
        if (protocol::clamped(value, *n))
            r.note = "option '" + o.name + "' value " + value + " clamped to " + std::to_string(*n);
        return std::to_string(*n);
    }
    case EngineOption::Type::Check: {
        std::string v = lower(value);
        if (v != "true" && v != "false") {
            r.error = "option '" + o.name + "' needs true or false, not '" + value + "'";
            return std::nullopt;
        }
        return v;
    }
    case EngineOption::Type::Combo: {
        auto m = std::find_if(o.vars.begin(), o.vars.end(),
                              [&](const std::string& x) { return lower(x) == lower(value); });
        if (m == o.vars.end()) {
            r.error = "option '" + o.name + "' has no value '" + value + "'";
            return std::nullopt;
        }
        return *m;
    }
    default: return value;
    }
}

} // namespace

OptionResult OptionSet::set(const std::string& name, const std::string& value) {
    OptionResult r;
    const EngineOption* found = find(name);
    if (!found) {
        r.note = "unknown option '" + name + "' ignored";
        return r;
    }
    EngineOption& o = opts[size_t(found - opts.data())];
    auto v = normalise(o, value, r);
    if (!v) return r;
    std::string previous = o.value;
    o.value = *v;
    if (o.onChange) o.onChange(o, previous, r);
    if (r.error) o.value = previous;
    return r;
}

} // namespace khun::protocol
