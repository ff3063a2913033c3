#pragma once

namespace keel {

// One callable made of several lambdas, for std::visit: each alternative of
// the variant goes to the lambda that takes it.
template <typename... Handlers>
struct Overloaded : Handlers... {
    using Handlers::operator()...;
};
template <typename... Handlers>
Overloaded(Handlers...) -> Overloaded<Handlers...>;

} // namespace keel
