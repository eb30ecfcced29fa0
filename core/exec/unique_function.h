// core/exec/unique_function.h - a move-only, type-erased callable (what C++23 calls
// std::move_only_function; g++ 12 does not ship it).
//
// Work posted to the progress thread owns what it captures (a reply buffer, a connection
// handle, a completion), so the closure type must be movable without being copyable; a
// std::function would reject such lambdas. Callables up to kInlineSize bytes whose move
// constructor cannot throw live inside the object: posting a small lambda allocates nothing
// beyond the queue slot.
#pragma once

#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace pmix::exec {

template <class Signature>
class UniqueFunction;

template <class R, class... Args>
class UniqueFunction<R(Args...)> {
public:
    static constexpr std::size_t kInlineSize = 4 * sizeof(void*);

    UniqueFunction() noexcept = default;
    UniqueFunction(std::nullptr_t) noexcept {}  // NOLINT: mirrors std::function

    template <class F, class D = std::decay_t<F>>
    requires(!std::is_same_v<D, UniqueFunction> && std::is_invocable_r_v<R, D&, Args...>)
        UniqueFunction(F&& f) {  // NOLINT: implicit, like std::function
        if constexpr (kFitsInline<D>) {
            ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
            ops_ = &kInlineOps<D>;
        } else {
            *reinterpret_cast<D**>(storage_) = new D(std::forward<F>(f));
            ops_ = &kHeapOps<D>;
        }
    }

    UniqueFunction(UniqueFunction&& other) noexcept { take(other); }
    UniqueFunction& operator=(UniqueFunction&& other) noexcept {
        if (this != &other) {
            reset();
            take(other);
        }
        return *this;
    }
    UniqueFunction& operator=(std::nullptr_t) noexcept {
        reset();
        return *this;
    }
    UniqueFunction(const UniqueFunction&) = delete;
    UniqueFunction& operator=(const UniqueFunction&) = delete;
    ~UniqueFunction() { reset(); }

    explicit operator bool() const noexcept { return ops_ != nullptr; }

    // Calling an empty UniqueFunction is a programming error (std::bad_function_call).
    R operator()(Args... args) {
        if (ops_ == nullptr) {
            throw std::bad_function_call();
        }
        return ops_->call(storage_, std::forward<Args>(args)...);
    }

private:
    struct Ops {
        R (*call)(void* self, Args&&... args);
        void (*move_to)(void* from, void* to) noexcept;  // move-construct at `to`, destroy `from`
        void (*destroy)(void* self) noexcept;
    };

    template <class D>
    static constexpr bool kFitsInline =
        sizeof(D) <= kInlineSize &&
        alignof(D) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<D>;

    template <class D>
    static constexpr Ops kInlineOps = {
        [](void* self, Args&&... args) -> R {
            return std::invoke(*std::launder(static_cast<D*>(self)), std::forward<Args>(args)...);
        },
        [](void* from, void* to) noexcept {
            D* src = std::launder(static_cast<D*>(from));
            ::new (to) D(std::move(*src));
            src->~D();
        },
        [](void* self) noexcept { std::launder(static_cast<D*>(self))->~D(); },
    };

    template <class D>
    static constexpr Ops kHeapOps = {
        [](void* self, Args&&... args) -> R {
            return std::invoke(**static_cast<D**>(self), std::forward<Args>(args)...);
        },
        [](void* from, void* to) noexcept { *static_cast<D**>(to) = *static_cast<D**>(from); },
        [](void* self) noexcept { delete *static_cast<D**>(self); },
    };

    void take(UniqueFunction& other) noexcept {
        if (other.ops_ != nullptr) {
            other.ops_->move_to(other.storage_, storage_);
            ops_ = std::exchange(other.ops_, nullptr);
        }
    }
    void reset() noexcept {
        if (ops_ != nullptr) {
            std::exchange(ops_, nullptr)->destroy(storage_);
        }
    }

    alignas(std::max_align_t) unsigned char storage_[kInlineSize];
    const Ops* ops_ = nullptr;
};

}  // namespace pmix::exec
